"""What is shown or sent, never what counts: escaping, feedback pages, the instructor report, grades.csv, export
files, the course gradebook, the terminal table and progress bar."""
