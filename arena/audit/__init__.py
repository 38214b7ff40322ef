"""The integrity audit: the statistics that flag a team, the stored flags, their words, the games a flag takes back."""
