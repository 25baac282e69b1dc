"""The one contact tolerance every collision path meets (the exact narrow phase, distances,
the compiled C kernel): two solids collide when they overlap by more than CONTACT_TOL (scene
units, metres in URDF). Touching is not colliding, so designed contacts (links meeting end to
end, a finger base on a palm, a box on a table) do not flicker with rounding; any overlap
deeper than CONTACT_TOL is a collision on every pair of shapes. A mesh is a surface without
depth: a mesh that touches another solid within CONTACT_TOL may be reported colliding.

Nothing else lives here, so that the C kernel's generator can import the number alone."""

CONTACT_TOL = 1e-9
