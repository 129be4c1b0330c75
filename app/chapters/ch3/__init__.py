"""Chapter 3: every module in this package defines cards; importing the package registers them
all (modules are discovered, so adding a section file needs no edit here)."""

import importlib
import pkgutil

for _m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_m.name}")
