"""`autograder serve`: the instructors' workspace, a local web face over the same results, gradebook,
overrides and similarity file the CLI uses (no store of its own).  `access` decides who is let in,
`pages` what each page shows (by calling the functions the commands call), `app` serves them."""
