"""Studies: reproducible answers to the questions of the source pages, one module each.

* :mod:`.p2_advantage`: the second player's advantage in Kuhn (3 and 100 cards), Leduc and
  stack-limited Leduc, from exact equilibria (``teamleduc study p2-advantage``);
* :mod:`.abstraction`: 10-bucket card abstractions of 100-card Kuhn, uniform and optimised,
  measured exactly in the full game (``teamleduc study abstraction``);
* :mod:`.tables`: writing a study's table as Markdown, CSV and JSON.
"""
