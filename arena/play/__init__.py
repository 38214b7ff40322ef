"""Playing games: the referee, the seats' players, one game a person names, a table's matches."""
