"""The methods: one package per paper's family (decision, cortex, d3, tod, pd3) and one module per
comparison method or shared helper; each reads top to bottom like the paper's algorithm."""
