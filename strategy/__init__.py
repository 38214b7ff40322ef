"""Bot strategy on top of the rules: example policies, card values, hidden-card sampling; pure, like the engine."""
