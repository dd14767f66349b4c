"""The commands of ``teamleduc``, one module per subject, each with its list ``COMMANDS``.

:mod:`teamleduc.cli` registers the modules it lists; :mod:`.options` holds what they share.
"""
