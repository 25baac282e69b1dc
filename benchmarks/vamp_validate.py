"""Times vamp.validate and vamp.validate_motion called from Python (PyPI vamp-planner's
module): run by the Python that has it (benchmarks/planner.py --vamp-python PATH), robrayc not
needed.

stdin: the robot (vamp's module name: panda, ur5, fetch), the configurations' variable names
(one line), then benchmarks/vamp_harness.cc's input (boxes, then configurations in those
variables' order, reordered here to VAMP's joints by name). stdout: us per validate call over
all configurations (each a float32 array, VAMP's own type; best of 5 passes of process
time), us per validate_motion call from configuration 2k to 2k + 1 (no bounds check, as
robrayc's; at resolution 1: the binding's, vamp/bindings/python/robot_helper.hh in
vamp-planner 0.6.4, validate_motion<Robot, rake, 1>, not the robot's 32), and the share of
configurations VAMP calls valid.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
import vamp


def euler_xyz(r: list[float]) -> list[float]:
    """VAMP's Cuboid angles (rho, theta, phi: R = Rz(phi) Ry(theta) Rx(rho)) of a rotation
    given row-major."""
    theta = -math.asin(max(-1.0, min(1.0, r[6])))
    return [math.atan2(r[7], r[8]), theta, math.atan2(r[3], r[0])]


def best_us(fn, count: int) -> float:
    best = math.inf
    for _ in range(5):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return 1e6 * best / max(1, count)


def main() -> None:
    lines = sys.stdin.read().split("\n")
    robot = getattr(vamp, lines[0].strip())
    names = lines[1].split()
    env = vamp.Environment()
    n_boxes = int(lines[2])
    for line in lines[3:3 + n_boxes]:
        v = [float(x) for x in line.split()]
        env.add_cuboid(vamp.Cuboid(v[0:3], euler_xyz(v[3:12]), v[12:15]))
    n = int(lines[3 + n_boxes])
    rows = np.array([[float(x) for x in line.split()]
                     for line in lines[4 + n_boxes:4 + n_boxes + n]])
    columns = [names.index(j) for j in robot.joint_names()]
    configs = list(np.ascontiguousarray(rows[:, columns], dtype=np.float32))
    validate, validate_motion = robot.validate, robot.validate_motion
    one = best_us(lambda: [validate(q, env) for q in configs], len(configs))
    pairs = list(zip(configs[0::2], configs[1::2], strict=False))
    motion = best_us(lambda: [validate_motion(a, b, env, False) for a, b in pairs], len(pairs))
    valid = sum(validate(q, env) for q in configs) / max(1, len(configs))
    print(f"{one:.6g} {motion:.6g} {valid:.6g}")


if __name__ == "__main__":
    main()
