"""The notebook API (teamleduc.api) resolves every advertised name and runs."""

import teamleduc.api as tl


def test_every_api_name_is_a_documented_callable_of_the_toolkit():
    """``__all__`` lists exactly the public names of ``teamleduc.api``, and each is a function
    or class of the toolkit with a docstring (or one of the two documented values)."""
    values = {"__version__": str, "PRESETS": dict}
    for name in tl.__all__:
        obj = getattr(tl, name)
        if name in values:
            assert isinstance(obj, values[name]), name
            continue
        assert callable(obj) and obj.__module__.startswith("teamleduc."), name
        assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
    public = {
        n for n, v in vars(tl).items() if not n.startswith("_") and not isinstance(v, type(tl))
    }
    assert public == set(tl.__all__) - {"__version__"}


def test_notebook_example_runs():
    config = tl.get_config("kuhn")
    assert abs(tl.evaluate("uniform", "uniform", config).value - 0.125) < 1e-15
    assert (
        tl.match("uniform", "cautious", config).score_x
        == -tl.match("cautious", "uniform", config).score_x
    )


def test_submodules_stay_modules():
    import teamleduc.evaluate as module

    assert hasattr(module, "evaluate") and callable(module.evaluate)
