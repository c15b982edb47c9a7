"""The simulated model's responders, one module per family of requests; importing the package
imports every module in it, each registering its responders (`simulated.responds`), so a family
of requests of its own is one new module here and a new request one function in its family's."""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
