"""A person's seat at a table (``arena play human …``): a ``Player`` whose decisions are typed at the terminal."""
