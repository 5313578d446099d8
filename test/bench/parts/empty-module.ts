// Nothing: with --in-process, what loading any second module costs, subtracted from every part.
export {};
