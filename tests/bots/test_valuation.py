"""What the example bots' valuation says a field is worth (strategy/valuation.py), read from its table of worths."""
from __future__ import annotations

import dataclasses

import pytest

from engine.cards import Bean, BeanType
from engine.rules import rules_for
from strategy.valuation import PROGRESS, field_worth, settle


@pytest.mark.parametrize(("bean", "count", "worth"), [
    (Bean.BLUE, 0, 0.0),
    (Bean.BLUE, 2, PROGRESS * 1 * 2 / 4),          # half way to the first coin at 4
    (Bean.BLUE, 5, 1 + PROGRESS * 1 * 1 / 2),      # 1 coin, one of the two beans to the second
    (Bean.BLUE, 10, 4.0),                          # the top of the beanometer
    (Bean.BLUE, 20, 4.0),                          # every blue card in one field
    (Bean.BLUE, 23, 4.0),                          # more than the deck holds: computed, not read
    (Bean.GARDEN, 1, PROGRESS * 2 * 1 / 2),        # no first level: the first coins are 2 at 2 beans
    (Bean.GARDEN, 3, 3.0),
    (Bean.RED, 4, 3.0),                            # on a level: nothing yet of the way to the next
    (Bean.CHILI, 4, 1 + PROGRESS * 1 * 1 / 3),
])
def test_a_fields_worth_is_its_coins_and_part_of_the_way_to_the_next_level(bean: Bean, count: int,
                                                                           worth: float) -> None:
    rules = rules_for("classic")
    assert field_worth(rules, bean, count) == pytest.approx(worth)
    assert field_worth(rules, None, count) == 0.0


def test_settle_adds_the_worth_of_every_field_in_their_order() -> None:
    rules = rules_for("classic")
    fields = ((Bean.BLUE, 5), (None, 0), (Bean.GARDEN, 1))
    assert settle(rules, fields) == field_worth(rules, Bean.BLUE, 5) + field_worth(rules, Bean.GARDEN, 1)
    assert settle(rules, ()) == 0.0


def test_rules_with_another_beanometer_get_worths_of_their_own() -> None:
    classic = rules_for("classic")
    assert field_worth(classic, Bean.BLUE, 4) == 1.0  # the classic table is built first
    steeper = tuple(BeanType(t.bean, t.name, t.count, (2, 4, 6, 8)) if t.bean is Bean.BLUE else t
                    for t in classic.bean_types)
    other = dataclasses.replace(classic, bean_types=steeper)
    assert field_worth(other, Bean.BLUE, 4) == 2.0
    assert field_worth(classic, Bean.BLUE, 4) == 1.0
