"""Submission files: the model, safe containers, the CSV and 2025 formats, reading and writing.

One idea per module, each depending only on those listed before it:

- :mod:`~teamleduc.files.findings`: the :class:`Finding` / :class:`SubmissionError` every
  problem becomes;
- :mod:`~teamleduc.files.threads`: files parsed or formatted on a few threads, their results
  taken in order;
- :mod:`~teamleduc.files.safeio`: untrusted folders and zips opened safely (:class:`Container`),
  size limits;
- :mod:`~teamleduc.files.model`: :class:`Submission` (arrays), merging team mixtures, the value
  rules of a strategy row, and the records a reader fills;
- :mod:`~teamleduc.files.csv_format`: the spec's strategy CSV files and ``meta-strategy.csv``;
- :mod:`~teamleduc.files.writing`: atomic, reproducible writing of CSV submissions;
- :mod:`~teamleduc.files.format2025`: the 2025 course's infoset files, ``.npy`` strategies and
  team zips;
- :mod:`~teamleduc.files.container`: every file of one open container checked (any format);
- :mod:`~teamleduc.files.reading`: whatever a path holds, its format detected, read and checked;
- :mod:`~teamleduc.files.convert`: CSV <-> 2025 team zips, losslessly.
"""
