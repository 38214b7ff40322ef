"""The ladder: seasons (batch and live), planning, matchmaking, executors, ratings, rankings, seeds."""
