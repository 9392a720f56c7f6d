"""What ``tipc prepare`` shares across dialects: how many images a mode makes (``sizes``) and a stage's argv read as
the suites' tools read their own (``toolargs``)."""
