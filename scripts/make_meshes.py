#!/usr/bin/env python3
"""Writes the project's own meshes, assets/meshes/*.obj (+ .mtl), for the desktop application.

Run again after changing a shape: scripts/make_meshes.py. Pure Python, no dependency.
Every mesh is in metres in its own frame; render/ places and scales them:
  bus.obj      the chaser bus, a unit box [-0.5, 0.5]^3 with details (docking adapter on -x, thruster
               clusters at the corners, an antenna dish on +z, star trackers); scaled per axis to the
               bus' equivalent inertia box
  hub.obj      a joint actuator, axis z, radius 1 and height 1 (scaled to the arm)
  gripper.obj  the end effector: a wrist plate and three fingers along +z, 0.35 m long
"""
import math
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "meshes")


class Mesh:
    def __init__(self):
        self.v = []
        self.groups = []  # (material, [faces]); faces are lists of 1-based vertex indices

    def group(self, material):
        self.groups.append((material, []))

    def face(self, *idx):
        self.groups[-1][1].append(idx)

    def vert(self, p):
        self.v.append(p)
        return len(self.v)

    def box(self, c, s):
        cx, cy, cz = c
        hx, hy, hz = s[0] / 2, s[1] / 2, s[2] / 2
        i = [self.vert((cx + sx * hx, cy + sy * hy, cz + sz * hz))
             for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
        # i[4*a + 2*b + c] for (x, y, z) signs; faces counter-clockwise seen from outside
        for f in ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)):
            self.face(*[i[k] for k in f])

    def frustum(self, c, axis, r0, r1, h, n=24, caps=True):
        """A cylinder (r0 == r1) or cone frustum from c along axis (+-x, +-y, +-z)."""
        def place(x, y, z):  # local (x, y) radial, z along the axis
            sgn = -1 if axis[0] == "-" else 1
            a = axis[-1]
            if a == "z":
                return (c[0] + x, c[1] + y, c[2] + sgn * z)
            if a == "x":
                return (c[0] + sgn * z, c[1] + x, c[2] + y)
            return (c[0] + y, c[1] + sgn * z, c[2] + x)
        flip = (axis[0] == "-") != (axis[-1] == "y")
        bot, top = [], []
        for k in range(n):
            t = 2 * math.pi * k / n
            bot.append(self.vert(place(r0 * math.cos(t), r0 * math.sin(t), 0)))
            top.append(self.vert(place(r1 * math.cos(t), r1 * math.sin(t), h)))
        for k in range(n):
            q = (bot[k], bot[(k + 1) % n], top[(k + 1) % n], top[k])
            self.face(*(q[::-1] if flip else q))
        if caps:
            self.face(*(bot if flip else bot[::-1]))
            self.face(*(top[::-1] if flip else top))

    def write(self, name, materials):
        with open(os.path.join(OUT, name + ".mtl"), "w") as f:
            f.write("# Grapple: written by scripts/make_meshes.py\n")
            for m, (kd, ks) in materials.items():
                f.write(f"newmtl {m}\nKd {kd[0]} {kd[1]} {kd[2]}\nKs {ks} {ks} {ks}\nNs 40\n\n")
        with open(os.path.join(OUT, name + ".obj"), "w") as f:
            f.write("# Grapple: written by scripts/make_meshes.py (project-made, CC0)\n")
            f.write(f"mtllib {name}.mtl\no {name}\n")
            for p in self.v:
                f.write("v %.5f %.5f %.5f\n" % p)
            for m, faces in self.groups:
                f.write(f"usemtl {m}\n")
                for fc in faces:
                    f.write("f " + " ".join(str(k) for k in fc) + "\n")


def bus():
    m = Mesh()
    m.group("panel")
    m.box((0, 0, 0), (1.0, 1.0, 1.0))
    m.group("frame")  # edge rails, slightly proud of the faces
    for sy in (-1, 1):
        for sz in (-1, 1):
            m.box((0, sy * 0.49, sz * 0.49), (1.02, 0.04, 0.04))
    for sx in (-1, 1):
        for sz in (-1, 1):
            m.box((sx * 0.49, 0, sz * 0.49), (0.04, 1.02, 0.04))
        for sy in (-1, 1):
            m.box((sx * 0.49, sy * 0.49, 0), (0.04, 0.04, 1.02))
    m.group("adapter")  # launch adapter ring on -x
    m.frustum((-0.5, 0, 0), "-x", 0.32, 0.28, 0.08)
    m.group("nozzle")  # thruster clusters at the four -x corners
    for sy in (-1, 1):
        for sz in (-1, 1):
            m.frustum((-0.5, sy * 0.4, sz * 0.4), "-x", 0.015, 0.04, 0.06, n=12)
    m.group("dish")  # antenna on +z: boom and dish
    m.frustum((-0.25, 0.2, 0.5), "z", 0.02, 0.02, 0.12, n=8)
    m.frustum((-0.25, 0.2, 0.62), "z", 0.03, 0.16, 0.06, n=24)
    m.group("tracker")  # star trackers
    m.box((-0.3, -0.3, 0.53), (0.08, 0.08, 0.06))
    m.box((-0.3, -0.15, 0.53), (0.08, 0.08, 0.06))
    m.write("bus", {"panel": ((0.78, 0.80, 0.84), 0.4), "frame": ((0.35, 0.36, 0.40), 0.2),
                    "adapter": ((0.45, 0.46, 0.50), 0.5), "nozzle": ((0.25, 0.25, 0.27), 0.6),
                    "dish": ((0.92, 0.92, 0.90), 0.3), "tracker": ((0.15, 0.15, 0.18), 0.3)})


def hub():
    m = Mesh()
    m.group("housing")
    m.frustum((0, 0, -0.5), "z", 1.0, 1.0, 1.0, n=32)
    m.group("flange")
    m.frustum((0, 0, -0.55), "z", 1.12, 1.12, 0.12, n=32)
    m.frustum((0, 0, 0.43), "z", 1.12, 1.12, 0.12, n=32)
    m.write("hub", {"housing": ((0.95, 0.55, 0.12), 0.5), "flange": ((0.30, 0.30, 0.33), 0.4)})


def gripper():
    m = Mesh()
    m.group("body")
    m.frustum((0, 0, 0), "z", 0.09, 0.09, 0.12, n=24)
    m.box((0, 0, 0.14), (0.22, 0.22, 0.04))
    m.group("finger")
    for k in range(3):
        t = 2 * math.pi * k / 3
        cx, cy = 0.08 * math.cos(t), 0.08 * math.sin(t)
        m.box((cx, cy, 0.24), (0.035, 0.035, 0.18))
        m.box((0.6 * cx, 0.6 * cy, 0.34), (0.06, 0.06, 0.03))
    m.write("gripper", {"body": ((0.32, 0.33, 0.36), 0.5), "finger": ((0.72, 0.74, 0.78), 0.7)})


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    bus()
    hub()
    gripper()
    print("wrote", ", ".join(sorted(os.listdir(OUT))))
