"""Small inline URDF models of the solver-error tests (singular, ill-conditioned).

Each function returns the URDF text; ``name`` is the robot's name (it becomes the
prefix of a model generated without one), the other arguments pick the variant.
"""

from __future__ import annotations

_CHAIN = """<robot name="{name}">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <link name="forearm"{tip_body}
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="forearm"/>
    <origin xyz="0 0 -1"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""

#: The tips of `chain`: the rest of its ``<link name="forearm"`` element.
TIPS = {
    # the elbow moves nothing
    "massless tip": "/>",
    # the elbow moves a point mass on its own axis: no inertia about the axis
    "point mass on the axis": '><inertial><mass value="0.5"/>'
                              '<inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>',
}


def chain(name: str = "chain", tip: str = "massless tip") -> str:
    """A two-link arm (shoulder and elbow about y) whose tip link ``forearm`` is one of
    `TIPS`: either way the elbow moves no inertia about its axis, M is singular for every q."""
    return _CHAIN.format(name=name, tip_body=TIPS[tip])


_WRIST = """<robot name="{name}">
  <link name="base"/>
  <link name="upper"/>
  <link name="hand">
    <inertial><origin xyz="0 0.2 0"/><mass value="0.5"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
  </link>
  <joint name="elbow" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="wrist" type="revolute"><parent link="upper"/><child link="hand"/>
    <axis xyz="1 0 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


def point_mass_wrist(name: str = "wrist") -> str:
    """A point mass (no rotational inertia) 0.2 m out along the elbow's axis (y) on an arm
    turned by a wrist about x: at wrist = 0 it lies on the elbow's axis, the elbow moves
    nothing: M is singular at that configuration only."""
    return _WRIST.format(name=name)


_BODY = """<robot name="{name}">
  <link name="base"><inertial><origin xyz="{com}"/><mass value="{mass}"/>
    <inertia ixx="{I[0]}" ixy="0" ixz="0" iyy="{I[1]}" iyz="0" izz="{I[2]}"/></inertial></link>
</robot>"""


def body(mass, inertia, com="0 0 0", name: str = "body") -> str:
    """A single body (use it with a floating base): ``mass``, principal rotational inertia
    ``inertia`` (three values) about its centre of mass ``com`` (text "x y z")."""
    return _BODY.format(name=name, mass=mass, I=inertia, com=com)
