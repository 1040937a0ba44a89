"""What ties mixlib to Snakemake: config reading and checks, the cluster-profile check, the
per-job logging of the rule scripts and atomic table and figure files. The top layer: it may
import every other package; no other package imports it."""
