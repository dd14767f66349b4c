"""The notebook API (teamleduc.api) resolves every advertised name and runs."""

import teamleduc.api as tl


def test_every_api_name_resolves():
    for name in tl.__all__:
        assert getattr(tl, name) is not None, name


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
