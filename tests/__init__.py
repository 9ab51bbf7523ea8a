"""Operator's test suite. A package so that its helpers are imported by their full name
(`tests.support.<module>`) from any folder of the suite: pytest puts the repository's root on
sys.path because this folder and every folder below it hold an `__init__.py`."""
