"""Tables in, tables out: the claims of the report and their verdicts, and the statistics of
the comparison within and across data sets. No estimator is fitted and no file path is named
here: every function reads the tables the experiment stages wrote."""
