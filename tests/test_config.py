import pytest

from teamleduc.config import PRESETS, default_rank_names, get_config, require_config


def test_default_is_the_spec_game():
    c = get_config()
    assert c.name == "team-leduc"
    assert (c.num_seats, c.ranks, c.suits, c.ante, c.raise_sizes) == (
        4,
        ("J", "Q", "K"),
        2,
        1,
        (2, 4),
    )
    assert c.raise_rule == "once-per-player"
    assert c.teams == ((0, 2), (1, 3))


def test_2025_edition_caps_raises():
    c = get_config("team-leduc-2025")
    assert (c.raise_rule, c.max_raises) == ("cap", 2)


def test_overrides_are_validated():
    assert get_config("leduc", suits=3).num_cards == 9
    with pytest.raises(ValueError, match="unknown preset"):
        get_config("nope")
    with pytest.raises(ValueError, match="deck"):
        get_config("team-leduc", suits=1)  # 3 cards cannot serve 4 seats
    with pytest.raises(ValueError, match="partition"):
        get_config("team-leduc", teams=((0, 1),))
    with pytest.raises(ValueError, match="raise rule"):
        get_config("kuhn", raise_rule="twice")


def test_rank_names():
    assert default_rank_names(2) == ("Q", "K")
    assert default_rank_names(4) == ("J", "Q", "K", "A")
    assert default_rank_names(100)[-1] == "100"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_round_trip_to_dict(name):
    c = PRESETS[name]
    d = c.to_dict()
    assert d["num_seats"] == c.num_seats
    assert sorted(s for t in d["teams"] for s in t) == list(range(1, c.num_seats + 1))


def test_internal_functions_refuse_a_preset_name():
    """A preset name is resolved once, at the entry point; deeper down a str is a TypeError
    naming ``config``, never resolved again."""
    from teamleduc.agents import QLearning
    from teamleduc.baselines import baseline
    from teamleduc.entrants import load_entrant
    from teamleduc.validate import validate_many

    config = get_config("kuhn")
    assert require_config(config) is config
    for call in (
        lambda: require_config("kuhn"),
        lambda: load_entrant("uniform", "kuhn"),
        lambda: baseline("uniform", "kuhn"),
        lambda: validate_many([], "kuhn"),
        lambda: QLearning("kuhn", "uniform"),
    ):
        with pytest.raises(TypeError, match="^config: a GameConfig"):
            call()
