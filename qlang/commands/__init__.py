"""The command line's floor: one module per command group, each turning options into typed
settings, calling the library, and turning its errors into exit statuses."""
