"""One pure function per pipeline rule: tables and parameters in, a tidy DataFrame out."""
