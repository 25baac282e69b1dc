"""Analyses over the IR (kinematics, collision, 2D projection). Heavy imports stay inside."""
