"""The HTML the Snakemake report shows for the study's tables: rounded, sortable, offline."""
