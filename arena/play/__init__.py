"""Playing games: the referee, what a game produced (records), the seats' players, one game a person names, a
table's matches."""
