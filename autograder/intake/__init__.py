"""What a grading run takes in (`batch.take`): notebooks, folders and zips of them, what an LMS hands out
(Canvas, Moodle, nbgrader, Gradescope: `downloads`), and who each submission is (`roster`)."""
