"""Rubric authoring: tools that write task packages rather than judge them — the ppt_judge rubric
generator (`gen_ppt_rubrics`) and the importers of public benchmarks (`importers`)."""
