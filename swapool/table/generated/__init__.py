"""Code generated from the project's contracts; never edited by hand. Each module names
the script that writes it, and a test keeps it equal to a fresh generation."""
