"""The submission service (`arena serve`): authors upload bot files with their token; a worker checks each
as `arena submit` does; each author reads their own bots and logs. ``spool`` (the queue on disk), ``app``
(the ASGI application), ``worker`` (the checks), ``owner`` (an author's own report), ``client`` (`arena
submit --to URL`)."""
