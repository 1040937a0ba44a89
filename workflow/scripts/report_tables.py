# Each input table as the HTML page the report shows (output of the same name): the comparison
# summary as data set x model (mixlib/report/comparison_pivot.py), any other table as it is;
# the claims rule's job also writes the landing page's summary of the verdicts ("landing").
from mixlib.pipeline.io import read_table, write_text
from mixlib.pipeline.workflow import logged_job
from mixlib.report.comparison_pivot import comparison_pivot_page
from mixlib.report.html_table import table_page
from mixlib.report.summary import claims_summary_html

NOTE = ("{path}: {rows} rows. Click a column's name to sort by it. Rounded to what each value "
        "can support (the report's landing page says how); the TSV keeps every digit.")

with logged_job(snakemake) as log:
    for name, path in snakemake.input.items():
        table = read_table(path)
        if name == "summary":
            text = comparison_pivot_page(table, path)
        else:
            # a claim's own columns are on the claims page: each reading's row leaves them out
            text = table_page(table, title=path.rsplit("/", 1)[-1],
                              note=NOTE.format(path=path, rows=len(table)),
                              per="id" if name == "readings" else None)
        write_text(text, snakemake.output[name])
        log.info("%s: %d rows -> %s", path, len(table), snakemake.output[name])
    if "landing" in snakemake.output.keys():
        write_text(claims_summary_html(read_table(snakemake.input.claims)),
                   snakemake.output.landing)
