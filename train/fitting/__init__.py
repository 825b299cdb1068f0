"""Running a fit: the plan that turns a parsed method into its fitter, data check, trainer and
callbacks (``plan``), fits inside a larger job (``in_process``), and the fitter classes by the
family each declares (``fitters``)."""
