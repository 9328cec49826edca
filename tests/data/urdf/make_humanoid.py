#!/usr/bin/env python3
"""Writes humanoid.urdf: a two-arm humanoid-like tree of 35 revolute joints (torso 3, head 2, two
arms of 7 with a two-finger hand each, two legs of 6), with rotated joint origins, every axis
direction and full (off-diagonal) inertias, for the URDF tests. Deterministic: run it again to
get the same file."""
import math
import random

rng = random.Random(7)
out = ['<?xml version="1.0"?>',
       '<!-- Written by make_humanoid.py: a 35-DOF humanoid-like tree for the URDF tests. -->',
       '<robot name="humanoid35">',
       '  <material name="skin"><color rgba="0.8 0.7 0.6 1"/></material>']


def rot(rpy):
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def link(name, mass, size):
    # a solid box's inertia, turned by a random rotation (off-diagonal terms)
    a, b, c = size
    d = [mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12, mass * (a * a + b * b) / 12]
    R = rot([rng.uniform(-0.5, 0.5) for _ in range(3)])
    I = [[sum(R[i][k] * d[k] * R[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
    com = [rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02), rng.uniform(0.0, 0.05)]
    out.append(f'  <link name="{name}">')
    out.append('    <inertial>')
    out.append(f'      <origin xyz="{com[0]:.4f} {com[1]:.4f} {com[2]:.4f}" rpy="0 0 0"/>')
    out.append(f'      <mass value="{mass:.4f}"/>')
    out.append(f'      <inertia ixx="{I[0][0]:.8g}" ixy="{I[0][1]:.8g}" ixz="{I[0][2]:.8g}" '
               f'iyy="{I[1][1]:.8g}" iyz="{I[1][2]:.8g}" izz="{I[2][2]:.8g}"/>')
    out.append('    </inertial>')
    out.append(f'    <visual><origin xyz="0 0 {c / 2:.4f}"/><geometry><box size="{a:.3f} {b:.3f} {c:.3f}"/></geometry>'
               '<material name="skin"/></visual>')
    out.append(f'    <collision><origin xyz="0 0 {c / 2:.4f}"/><geometry><cylinder radius="{max(a, b) / 2:.3f}" '
               f'length="{c:.3f}"/></geometry></collision>')
    out.append('  </link>')


def joint(name, parent, child, xyz, axis):
    rpy = [rng.uniform(-0.3, 0.3) for _ in range(3)]
    out.append(f'  <joint name="{name}" type="revolute">')
    out.append(f'    <parent link="{parent}"/><child link="{child}"/>')
    out.append(f'    <origin xyz="{xyz[0]:.3f} {xyz[1]:.3f} {xyz[2]:.3f}" rpy="{rpy[0]:.4f} {rpy[1]:.4f} {rpy[2]:.4f}"/>')
    out.append(f'    <axis xyz="{axis[0]} {axis[1]} {axis[2]}"/>')
    out.append('    <limit lower="-2.5" upper="2.5" effort="100" velocity="3"/>')
    out.append('  </joint>')


AXES = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0.6, 0.8), (0.6, 0, -0.8)]
link("pelvis", 10.0, (0.3, 0.2, 0.15))
chain_count = 0


def chain(prefix, parent, offsets, masses, size):
    global chain_count
    for k, (xyz, m) in enumerate(zip(offsets, masses)):
        child = f"{prefix}_{k + 1}"
        link(child, m, size)
        joint(f"{prefix}_joint{k + 1}", parent, child, xyz, AXES[(k + chain_count) % len(AXES)])
        parent = child
    chain_count += 1
    return parent


torso = chain("torso", "pelvis", [(0, 0, 0.12), (0, 0, 0.1), (0, 0, 0.15)], [4, 4, 8], (0.25, 0.18, 0.12))
chain("head", torso, [(0, 0, 0.25), (0, 0, 0.05)], [0.5, 3], (0.15, 0.15, 0.18))
for side, s in (("left", 1), ("right", -1)):
    arm = [(0, s * 0.22, 0.18), (0, 0, -0.05), (0, 0, -0.15), (0, 0, -0.15), (0, 0, -0.12), (0, 0, -0.1), (0, 0, -0.06)]
    hand = chain(f"{side}_arm", torso, arm, [2, 1.5, 1.5, 1.2, 1, 0.6, 0.4], (0.08, 0.08, 0.14))
    chain(f"{side}_finger_a", hand, [(0.02, 0.01, -0.06)], [0.05], (0.02, 0.02, 0.05))
    chain(f"{side}_finger_b", hand, [(-0.02, 0.01, -0.06)], [0.05], (0.02, 0.02, 0.05))
    leg = [(0, s * 0.1, -0.08), (0, 0, -0.05), (0, 0, -0.05), (0, 0, -0.4), (0, 0, -0.4), (0.03, 0, -0.05)]
    chain(f"{side}_leg", "pelvis", leg, [1.5, 1.5, 5, 3, 1, 1], (0.1, 0.1, 0.35))
out.append('</robot>')
open("humanoid.urdf", "w").write("\n".join(out) + "\n")
