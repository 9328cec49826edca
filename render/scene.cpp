#include "render/scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include <Eigen/Eigenvalues>
#include <osg/BlendFunc>
#include <osg/Depth>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LightModel>
#include <osg/LineStipple>
#include <osg/LineWidth>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osg/Point>
#include <osg/PolygonOffset>
#include <osg/ShapeDrawable>
#include <osg/Switch>

#include "core/analysis/manipulability.hpp"
#include "core/dynamics/configuration.hpp"
#include "core/dynamics/data.hpp"
#include "core/dynamics/kinematics.hpp"
#include "core/math/rotation.hpp"
#include "core/sim/scenario.hpp"
#include "core/world/debris.hpp"
#include "core/world/environment.hpp"
#include "render/recording.hpp"
#include "render/mesh_loader.hpp"

namespace grapple::render {

using core::Matrix3;
using core::Transform;
using core::Vector3;
using core::equivalentBox;

namespace {

osg::Matrixd toOsg(const Transform& X) {
  const Matrix3& R = X.R;
  return osg::Matrixd(R(0, 0), R(1, 0), R(2, 0), 0, R(0, 1), R(1, 1), R(2, 1), 0, R(0, 2), R(1, 2), R(2, 2), 0,
                      X.p.x(), X.p.y(), X.p.z(), 1);
}

osg::Vec3 toOsg(const Vector3& x) { return osg::Vec3(float(x.x()), float(x.y()), float(x.z())); }
osg::Vec4 rgba(const float c[3], float a = 1.0f) { return osg::Vec4(c[0], c[1], c[2], a); }

// A rotation taking z onto the unit vector d.
Matrix3 alignZ(const Vector3& d) {
  const Vector3 z = d.normalized();
  const Vector3 a = std::abs(z.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY();
  const Vector3 x = a.cross(z).normalized();
  Matrix3 R;
  R.col(0) = x;
  R.col(1) = z.cross(x);
  R.col(2) = z;
  return R;
}

osg::ref_ptr<osg::Geode> shape(osg::Shape* s, const osg::Vec4& color) {
  osg::ref_ptr<osg::TessellationHints> hints = new osg::TessellationHints;
  hints->setDetailRatio(0.6f);
  osg::ref_ptr<osg::ShapeDrawable> d = new osg::ShapeDrawable(s, hints);
  d->setColor(color);
  osg::ref_ptr<osg::Geode> g = new osg::Geode;
  g->addDrawable(d);
  return g;
}

// A cylinder of radius r from a to b (body components).
osg::ref_ptr<osg::Node> cylinderBetween(const Vector3& a, const Vector3& b, double r, const osg::Vec4& color) {
  const Vector3 d = b - a;
  const double len = d.norm();
  if (len < 1e-6) return nullptr;
  osg::ref_ptr<osg::MatrixTransform> xf = new osg::MatrixTransform(toOsg(Transform{alignZ(d), 0.5 * (a + b)}));
  xf->addChild(shape(new osg::Cylinder(osg::Vec3(), float(r), float(len)), color));
  return xf;
}

// An arrow of unit length along z (shaft and head), scaled and turned by its parent transform.
osg::ref_ptr<osg::Node> unitArrow(const osg::Vec4& color) {
  osg::ref_ptr<osg::Group> g = new osg::Group;
  osg::ref_ptr<osg::MatrixTransform> shaft = new osg::MatrixTransform(osg::Matrixd::translate(0, 0, 0.4));
  shaft->addChild(shape(new osg::Cylinder(osg::Vec3(), 0.025f, 0.8f), color));
  osg::ref_ptr<osg::MatrixTransform> head = new osg::MatrixTransform(osg::Matrixd::translate(0, 0, 0.8));
  head->addChild(shape(new osg::Cone(osg::Vec3(), 0.07f, 0.2f), color));
  g->addChild(shaft);
  g->addChild(head);
  return g;
}

// Unlit, coloured lines.
osg::ref_ptr<osg::Geometry> lineGeometry(const osg::Vec4& color, GLenum mode) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setUseDisplayList(false);
  g->setUseVertexBufferObjects(true);
  g->setDataVariance(osg::Object::DYNAMIC);
  g->setVertexArray(new osg::Vec3Array);
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array(1);
  (*c)[0] = color;
  g->setColorArray(c, osg::Array::BIND_OVERALL);
  g->addPrimitiveSet(new osg::DrawArrays(mode, 0, 0));
  g->getOrCreateStateSet()->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
  return g;
}

void setLineVertices(osg::Geometry* g, const std::vector<Vector3>& points) {
  auto* v = static_cast<osg::Vec3Array*>(g->getVertexArray());
  v->resize(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) (*v)[k] = toOsg(points[k]);
  v->dirty();
  static_cast<osg::DrawArrays*>(g->getPrimitiveSet(0))->setCount(static_cast<GLsizei>(points.size()));
  g->dirtyBound();
}

// First cantilever bending shape, 1 at the tip (ξ = s / l); its mean over the span is 0.3915.
double cantileverShape(double xi) {
  const double b = 1.875104068711961, sigma = 0.734095513798;
  auto f = [&](double x) { return std::cosh(b * x) - std::cos(b * x) - sigma * (std::sinh(b * x) - std::sin(b * x)); };
  return f(xi) / f(1.0);
}

// A flexible arm segment: a tube along the deformed centre line of the beam, from clamped root
// (no displacement, no slope) to the tip displacement Φ_e δ and rotation Δ_e δ (cubic Hermite).
struct BeamVisual {
  int body = 0;
  Transform X_body_link;
  Vector3 root = Vector3::Zero();  // link components
  double length = 0, radius = 0;
  osg::ref_ptr<osg::Geometry> geometry;
  static constexpr int kStations = 24, kSides = 14;
};

// A solar array: a plate (its equivalent inertia box) deformed by approximate mode shapes derived
// from the modal participation factors (display only).
struct PlateVisual {
  int body = 0;
  std::vector<Vector3> rest;               // grid vertices, body components
  std::vector<std::vector<Vector3>> mode;  // (nf) displacement of each vertex per unit δ_k
  int nu = 0, nw = 0;                      // grid size (span x width)
  osg::ref_ptr<osg::Geometry> surface, lines;
};

}  // namespace

struct CaptureScene::Impl {
  core::Model model;
  core::Data data;
  core::Scenario scenario;
  core::Environment environment;
  std::vector<std::string> warnings;
  std::map<std::string, osg::ref_ptr<osg::Node>> meshes;
  std::set<std::string> missing_meshes;
  double exaggeration = 1;
  SceneOptions options;
  double scale = 1;  // characteristic arm size [m]
  int ee_frame = -1;
  Snapshot last;
  Eigen::VectorXd q_display;

  osg::ref_ptr<osg::Group> root;
  std::vector<osg::ref_ptr<osg::MatrixTransform>> body_xf;  // (nbodies)
  std::vector<BeamVisual> beams;
  std::vector<PlateVisual> plates;
  osg::ref_ptr<osg::MatrixTransform> debris_xf, com_xf, earth_xf;
  osg::ref_ptr<osg::MatrixTransform> v_base_xf, v_debris_xf, p_xf, l_xf, ellipsoid_xf;
  bool own_geometry = false;  // the model has visual or collision shapes: draw those
  std::vector<osg::ref_ptr<osg::Switch>> geometry_sw;  // per body: visual (0), collision (1)
  osg::ref_ptr<osg::Switch> frames_sw, vel_sw, mom_sw, com_sw, paths_sw, stars_sw, earth_sw, ellipsoid_sw, workspace_sw;
  std::vector<Vector3> workspace_points;  // in the base's frame
  Eigen::Matrix3d ellipsoid_axes = Eigen::Matrix3d::Zero();
  osg::ref_ptr<osg::Geometry> path_actual, path_planned;
  osg::ref_ptr<osg::Geometry> hand_error;  // the hand to the grasp point (with the paths)
  // The capture plan: its path coloured by margin, the window's and the poses' markers.
  osg::ref_ptr<osg::Switch> plan_sw, window_sw, trail_sw;
  osg::ref_ptr<osg::Geometry> plan_path;
  osg::ref_ptr<osg::MatrixTransform> standoff_xf, approach_xf, meeting_xf;
  PlanOverlay plan;  // the one drawn (plan.number 0: none)
  // The bus' axes and the trails of their tips.
  osg::ref_ptr<osg::Geometry> trail_axes, trail_tips[3];
  double trail_length = 1;
  Vector3 hand_error_from = Vector3::Zero(), hand_error_to = Vector3::Zero();
  // The debris as estimated (with a camera): its ghost and its position's 3σ ellipsoid.
  osg::ref_ptr<osg::Switch> estimate_sw;
  osg::ref_ptr<osg::MatrixTransform> ghost_xf, estimate_ellipsoid_xf;
  Eigen::Matrix3d estimate_axes = Eigen::Matrix3d::Zero();
  bool estimate_shown = false;

  Impl(const core::Model& m, const core::Scenario& s)
      : model(m), data(m, m.hasFlexibleBodies()), scenario(s), environment(s.environment) {}

  void build(const std::string& asset_dir);
  void buildBody(int i, const std::string& asset_dir);
  void buildBeam(int i);
  void buildPlate(int i);
  void buildDebris();
  void addDebrisShapes(osg::Group* into, const osg::ref_ptr<osg::Node>& mesh, const osg::Vec4* tint);
  void buildEstimate(const osg::ref_ptr<osg::Node>& mesh);
  void updateEstimate(const Snapshot& s);
  void buildStars();
  osg::ref_ptr<osg::Node> mesh(const std::string& asset_dir, const std::string& name);
  osg::ref_ptr<osg::Node> shapeNode(const core::Geometry& g, bool collision);
  osg::ref_ptr<osg::Group> bodyShapes(const std::vector<core::Geometry>& shapes, int i, bool collision);
  void updateBeam(BeamVisual& b, const Eigen::VectorXd& q);
  void updatePlate(PlateVisual& p, const Eigen::VectorXd& q);
  void placeArrow(osg::MatrixTransform* xf, const Vector3& at, const Vector3& vec, double length);
  void applyOptions();
  void buildWorkspace();
  void buildPlan();
};

// A mesh of assets/meshes, read once and shared by every place that draws it.
osg::ref_ptr<osg::Node> CaptureScene::Impl::mesh(const std::string& asset_dir, const std::string& name) {
  if (auto it = meshes.find(name); it != meshes.end()) return it->second;
  std::string error;
  osg::ref_ptr<osg::Node> n = loadMesh(asset_dir + "/meshes/" + name + ".obj", &error);
  if (!n) warnings.push_back(error);
  meshes[name] = n;
  return n;
}

// One shape of the model's geometry, in its own frame. A mesh that cannot be read is replaced by
// a small box (one warning per mesh).
osg::ref_ptr<osg::Node> CaptureScene::Impl::shapeNode(const core::Geometry& g, bool collision) {
  const osg::Vec4 color = collision ? osg::Vec4(0.95f, 0.45f, 0.15f, 1)
                          : g.has_color ? osg::Vec4(g.rgba[0], g.rgba[1], g.rgba[2], g.rgba[3])
                                        : rgba(ScenePalette::kLink);
  const float x = float(g.size.x()), y = float(g.size.y()), z = float(g.size.z());
  switch (g.type) {
    case core::ShapeType::kBox: return shape(new osg::Box(osg::Vec3(), x, y, z), color);
    case core::ShapeType::kCylinder: return shape(new osg::Cylinder(osg::Vec3(), x, y), color);
    case core::ShapeType::kSphere: return shape(new osg::Sphere(osg::Vec3(), x), color);
    case core::ShapeType::kCapsule: return shape(new osg::Capsule(osg::Vec3(), x, y), color);
    case core::ShapeType::kMesh: break;
  }
  char key_color[64];
  std::snprintf(key_color, sizeof key_color, "|%g %g %g %g|%d", color.r(), color.g(), color.b(), color.a(),
                int(g.has_color || collision));
  const std::string key = (g.mesh_path.empty() ? g.mesh_uri : g.mesh_path) + key_color;
  auto it = meshes.find(key);
  if (it == meshes.end()) {
    std::string error;
    osg::ref_ptr<osg::Node> n;
    if (g.mesh_path.empty()) {
      error = "mesh '" + g.mesh_uri + "' of link '" + g.link + "' not found";
    } else {
      n = loadMesh(g.mesh_path, &error, g.has_color || collision ? &color : nullptr);
    }
    if (!n && missing_meshes.insert(g.mesh_uri).second) warnings.push_back(error + ": drawn as a small box");
    it = meshes.emplace(key, n).first;
  }
  if (!it->second) {
    const float s = float(0.05 * scale);
    return shape(new osg::Box(osg::Vec3(), s, s, s), color);
  }
  osg::ref_ptr<osg::MatrixTransform> xf =
      new osg::MatrixTransform(osg::Matrixd::scale(g.scale.x(), g.scale.y(), g.scale.z()));
  xf->addChild(it->second);
  return xf;
}

osg::ref_ptr<osg::Group> CaptureScene::Impl::bodyShapes(const std::vector<core::Geometry>& shapes, int i,
                                                        bool collision) {
  osg::ref_ptr<osg::Group> group = new osg::Group;
  for (const core::Geometry& g : shapes) {
    if (g.body != i) continue;
    osg::ref_ptr<osg::MatrixTransform> place = new osg::MatrixTransform(toOsg(g.origin));
    place->addChild(shapeNode(g, collision));
    group->addChild(place);
  }
  return group;
}

void CaptureScene::Impl::build(const std::string& asset_dir) {
  root = new osg::Group;
  osg::StateSet* ss = root->getOrCreateStateSet();
  osg::ref_ptr<osg::Material> material = new osg::Material;
  material->setColorMode(osg::Material::AMBIENT_AND_DIFFUSE);
  material->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.3f, 0.3f, 0.3f, 1));
  material->setShininess(osg::Material::FRONT_AND_BACK, 30);
  ss->setAttributeAndModes(material);
  osg::ref_ptr<osg::LightModel> lm = new osg::LightModel;
  lm->setTwoSided(true);
  lm->setAmbientIntensity(osg::Vec4(0.35f, 0.35f, 0.38f, 1));
  ss->setAttributeAndModes(lm);
  ss->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
  // Keep the destination alpha at 1 so grabbed frames are opaque.
  ss->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA));

  // The arm's characteristic size: its longest joint-to-joint offset.
  scale = 0;
  for (int i = 1; i < model.nbodies; ++i) scale = std::max(scale, model.X_parent_joint[i].p.norm());
  for (const auto& f : model.flex) {
    if (f.beam) scale = std::max(scale, f.p_tip.norm());
  }
  if (scale <= 0) scale = 1;

  ee_frame = core::endEffectorFrame(model, scenario);
  own_geometry = !model.visual.empty() || !model.collision.empty();

  frames_sw = new osg::Switch;
  {  // one set of axes, shared by every body
    osg::ref_ptr<osg::Geode> axes = new osg::Geode;
    const float L = float(0.35 * scale);
    const float col[3][3] = {{1, 0.2f, 0.2f}, {0.2f, 1, 0.2f}, {0.3f, 0.5f, 1}};
    for (int a = 0; a < 3; ++a) {
      osg::ref_ptr<osg::Geometry> g = lineGeometry(rgba(col[a]), GL_LINES);
      Vector3 e = Vector3::Zero();
      e[a] = L;
      setLineVertices(g, {Vector3::Zero(), e});
      g->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2));
      axes->addDrawable(g);
    }
    frames_sw->addChild(axes);
  }

  osg::ref_ptr<osg::Group> chaser = new osg::Group;
  body_xf.resize(model.nbodies);
  for (int i = 0; i < model.nbodies; ++i) {
    body_xf[i] = new osg::MatrixTransform;
    body_xf[i]->setName("body:" + std::to_string(i));
    body_xf[i]->setDataVariance(osg::Object::DYNAMIC);
    body_xf[i]->addChild(frames_sw);
    chaser->addChild(body_xf[i]);
    buildBody(i, asset_dir);
  }
  root->addChild(chaser);
  buildDebris();

  // Overlays.
  com_sw = new osg::Switch;
  com_xf = new osg::MatrixTransform;
  com_xf->addChild(shape(new osg::Sphere(osg::Vec3(), float(0.06 * scale)), osg::Vec4(1, 0.9f, 0.1f, 1)));
  com_sw->addChild(com_xf);
  root->addChild(com_sw);

  vel_sw = new osg::Switch;
  v_base_xf = new osg::MatrixTransform;
  v_base_xf->addChild(unitArrow(osg::Vec4(0.2f, 0.95f, 0.3f, 1)));
  v_debris_xf = new osg::MatrixTransform;
  v_debris_xf->addChild(unitArrow(osg::Vec4(0.2f, 0.95f, 0.3f, 1)));
  vel_sw->addChild(v_base_xf);
  vel_sw->addChild(v_debris_xf);
  root->addChild(vel_sw);
  mom_sw = new osg::Switch;
  p_xf = new osg::MatrixTransform;
  p_xf->addChild(unitArrow(osg::Vec4(1, 0.3f, 0.9f, 1)));
  l_xf = new osg::MatrixTransform;
  l_xf->addChild(unitArrow(osg::Vec4(0.65f, 0.4f, 1, 1)));
  mom_sw->addChild(p_xf);
  mom_sw->addChild(l_xf);
  root->addChild(mom_sw);

  // The manipulability ellipsoid: a unit sphere stretched along the singular directions.
  ellipsoid_sw = new osg::Switch;
  ellipsoid_xf = new osg::MatrixTransform;
  {
    osg::ref_ptr<osg::Node> ball = shape(new osg::Sphere(osg::Vec3(), 1.0f), osg::Vec4(0.3f, 0.95f, 1, 0.35f));
    osg::StateSet* ss = ball->getOrCreateStateSet();
    ss->setMode(GL_BLEND, osg::StateAttribute::ON);
    ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
    ss->setMode(GL_RESCALE_NORMAL, osg::StateAttribute::ON);
    ellipsoid_xf->addChild(ball);
  }
  ellipsoid_sw->addChild(ellipsoid_xf, false);
  root->addChild(ellipsoid_sw);
  workspace_sw = new osg::Switch;
  workspace_sw->setName("workspace");
  body_xf[0]->addChild(workspace_sw);

  paths_sw = new osg::Switch;
  osg::ref_ptr<osg::Geode> paths = new osg::Geode;
  path_actual = lineGeometry(osg::Vec4(1, 0.55f, 0.15f, 1), GL_LINE_STRIP);
  path_actual->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2));
  path_planned = lineGeometry(osg::Vec4(0.3f, 0.95f, 1, 1), GL_LINE_STRIP);
  path_planned->setName("planned_path");
  path_planned->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2));
  path_planned->getOrCreateStateSet()->setAttributeAndModes(new osg::LineStipple(2, 0xF0F0));
  paths->addDrawable(path_actual);
  paths->addDrawable(path_planned);
  hand_error = lineGeometry(osg::Vec4(1, 0.2f, 0.6f, 1), GL_LINES);
  hand_error->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2));
  paths->addDrawable(hand_error);
  paths_sw->addChild(paths);
  root->addChild(paths_sw);

  earth_sw = new osg::Switch;
  earth_xf = new osg::MatrixTransform;
  earth_xf->addChild(unitArrow(osg::Vec4(0.25f, 0.85f, 0.75f, 1)));
  earth_sw->addChild(earth_xf);
  root->addChild(earth_sw);

  buildPlan();
  buildStars();
  applyOptions();
}

namespace {

// A sphere marker of radius r (translucent when alpha < 1), placed by its transform; hidden until placed.
osg::ref_ptr<osg::MatrixTransform> marker(const std::string& name, double r, const osg::Vec4& color) {
  osg::ref_ptr<osg::MatrixTransform> xf = new osg::MatrixTransform;
  xf->setName(name);
  xf->setDataVariance(osg::Object::DYNAMIC);
  osg::ref_ptr<osg::Geode> ball = shape(new osg::Sphere(osg::Vec3(), float(r)), color);
  if (color.a() < 1) {
    osg::StateSet* ss = ball->getOrCreateStateSet();
    ss->setMode(GL_BLEND, osg::StateAttribute::ON);
    ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  }
  xf->addChild(ball);
  xf->setNodeMask(0);
  return xf;
}

}  // namespace

void CaptureScene::Impl::buildPlan() {
  plan_sw = new osg::Switch;
  plan_sw->setName("plan");
  plan_path = lineGeometry(osg::Vec4(0.5f, 0.5f, 0.5f, 1), GL_LINE_STRIP);
  plan_path->setName("plan_path");
  plan_path->setColorArray(new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);
  plan_path->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(5));
  osg::ref_ptr<osg::Geode> g = new osg::Geode;
  g->addDrawable(plan_path);
  plan_sw->addChild(g);
  root->addChild(plan_sw);

  // The capture window: a translucent red ball around the grasp point's position at the meeting;
  // the stand-off pose's hand (white) and the approach point (cyan).
  window_sw = new osg::Switch;
  window_sw->setName("capture_markers");
  meeting_xf = marker("capture_window", 0.18, osg::Vec4(0.95f, 0.2f, 0.15f, 0.45f));
  standoff_xf = marker("standoff", 0.07, osg::Vec4(0.95f, 0.95f, 0.95f, 1));
  approach_xf = marker("approach", 0.07, osg::Vec4(0.3f, 0.95f, 1, 1));
  window_sw->addChild(meeting_xf);
  window_sw->addChild(standoff_xf);
  window_sw->addChild(approach_xf);
  root->addChild(window_sw);

  // The bus' axes (x red, y green, z blue) and the trails of their tips, fading with age.
  trail_sw = new osg::Switch;
  trail_sw->setName("bus_trail");
  trail_length = 1.2 * scale;
  osg::ref_ptr<osg::Geode> t = new osg::Geode;
  trail_axes = lineGeometry(osg::Vec4(1, 1, 1, 1), GL_LINES);
  trail_axes->setName("bus_axes");
  trail_axes->setColorArray(new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);
  trail_axes->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2));
  t->addDrawable(trail_axes);
  for (int a = 0; a < 3; ++a) {
    trail_tips[a] = lineGeometry(osg::Vec4(1, 1, 1, 1), GL_LINE_STRIP);
    trail_tips[a]->setName(std::string("bus_trail_") + "xyz"[a]);
    trail_tips[a]->setColorArray(new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);
    trail_tips[a]->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2));
    t->addDrawable(trail_tips[a]);
  }
  t->getOrCreateStateSet()->setMode(GL_BLEND, osg::StateAttribute::ON);
  trail_sw->addChild(t);
  root->addChild(trail_sw);
}

void CaptureScene::Impl::buildBody(int i, const std::string& asset_dir) {
  osg::MatrixTransform* xf = body_xf[i];
  const core::FlexibleBody& fb = model.flex[i];
  const double r_link = 0.025 * scale;
  const osg::Vec4 link_color = rgba(ScenePalette::kLink);
  if (own_geometry) {
    // The robot's own shapes (flexible bodies still drawn deformed from their modes).
    if (fb.nf > 0 && !fb.beam) {
      buildPlate(i);
    } else if (fb.nf > 0) {
      buildBeam(i);
    }
    osg::ref_ptr<osg::Switch> sw = new osg::Switch;
    sw->setName("geometry");
    sw->addChild(bodyShapes(model.visual, i, false), !options.collision);
    sw->addChild(bodyShapes(model.collision, i, true), options.collision);
    geometry_sw.push_back(sw);
    xf->addChild(sw);
    return;
  }
  if (i == 0) {
    const core::Inertia& I = model.inertia[0];
    const Vector3 size = equivalentBox(I.m, I.inertiaAboutCom(), 0.1 * scale);
    osg::ref_ptr<osg::Node> bus = mesh(asset_dir, "bus");
    osg::ref_ptr<osg::MatrixTransform> place =
        new osg::MatrixTransform(osg::Matrixd::scale(size.x(), size.y(), size.z()) * osg::Matrixd::translate(toOsg(I.com())));
    if (bus) {
      place->addChild(bus);
    } else {
      place->addChild(shape(new osg::Box(osg::Vec3(), 1.0f), osg::Vec4(0.78f, 0.8f, 0.84f, 1)));
    }
    xf->addChild(place);
  } else if (fb.nf > 0 && !fb.beam) {
    buildPlate(i);
  } else if (fb.nf > 0) {
    buildBeam(i);
  }
  // Joint actuator (moving joints: the body frame's z is the joint axis).
  if (i > 0 && model.joint[i].nv > 0) {
    osg::ref_ptr<osg::Node> hub = mesh(asset_dir, "hub");
    const double rh = 1.7 * r_link, hh = 5 * r_link;
    osg::ref_ptr<osg::MatrixTransform> place = new osg::MatrixTransform(osg::Matrixd::scale(rh, rh, hh));
    if (hub) {
      place->addChild(hub);
    } else {
      place->addChild(shape(new osg::Cylinder(osg::Vec3(), 1.0f, 1.0f), osg::Vec4(0.95f, 0.55f, 0.12f, 1)));
    }
    xf->addChild(place);
  }
  // Rigid links: cylinders from the body origin to its children's joints and to its frames
  // (flexible beams draw their own tube from the root; the children at the tip hang from it).
  if (i > 0 && !(fb.nf > 0 && !fb.beam)) {
    std::vector<Vector3> ends;
    for (int c : model.children[i]) {
      if (!model.at_tip[c]) ends.push_back(model.X_parent_joint[c].p);
    }
    for (const core::Frame& f : model.frames) {
      if (f.body == i && f.X_body_frame.p.norm() > 1e-6) ends.push_back(f.X_body_frame.p);
    }
    if (fb.nf > 0) ends.push_back(fb.X_body_link.act(Vector3(0, fb.p_tip.y(), fb.p_tip.z())));
    for (const Vector3& e : ends) {
      // An L-shaped run when the offset has a component along the joint axis (DH d then a).
      const Vector3 elbow(0, 0, e.z());
      if (std::abs(e.z()) > 1e-6 && e.head<2>().norm() > 1e-6) {
        if (auto n = cylinderBetween(Vector3::Zero(), elbow, r_link, link_color)) xf->addChild(n);
        if (auto n = cylinderBetween(elbow, e, r_link, link_color)) xf->addChild(n);
      } else if (auto n = cylinderBetween(Vector3::Zero(), e, r_link, link_color)) {
        xf->addChild(n);
      }
    }
  }
  // The gripper at the end effector (along its z axis).
  if (ee_frame >= 0 && model.frames[ee_frame].body == i) {
    osg::ref_ptr<osg::Node> g = mesh(asset_dir, "gripper");
    const double s = std::max(0.4, 0.15 * scale) / 0.36;  // the mesh is 0.36 m long
    osg::ref_ptr<osg::MatrixTransform> place =
        new osg::MatrixTransform(osg::Matrixd::scale(s, s, s) * toOsg(model.frames[ee_frame].X_body_frame));
    if (g) place->addChild(g);
    xf->addChild(place);
  }
}

void CaptureScene::Impl::buildBeam(int i) {
  const core::FlexibleBody& fb = model.flex[i];
  BeamVisual b;
  b.body = i;
  b.X_body_link = fb.X_body_link;
  // The beam runs along the link's x axis and ends at p_tip; it starts on the link's y-z plane
  // (every built-in robot: root = [0, y, z]).
  b.root = Vector3(0, fb.p_tip.y(), fb.p_tip.z());
  b.length = fb.p_tip.x() > 0 ? fb.p_tip.x() : fb.p_tip.norm();
  b.radius = 0.022 * scale;
  b.geometry = new osg::Geometry;
  b.geometry->setUseDisplayList(false);
  b.geometry->setUseVertexBufferObjects(true);
  b.geometry->setDataVariance(osg::Object::DYNAMIC);
  const int ns = BeamVisual::kStations, nc = BeamVisual::kSides;
  b.geometry->setVertexArray(new osg::Vec3Array(ns * nc));
  b.geometry->setNormalArray(new osg::Vec3Array(ns * nc), osg::Array::BIND_PER_VERTEX);
  osg::ref_ptr<osg::Vec4Array> col = new osg::Vec4Array(1);
  (*col)[0] = rgba(ScenePalette::kLink);
  b.geometry->setColorArray(col, osg::Array::BIND_OVERALL);
  osg::ref_ptr<osg::DrawElementsUShort> tris = new osg::DrawElementsUShort(GL_TRIANGLES);
  for (int s = 0; s + 1 < ns; ++s) {
    for (int c = 0; c < nc; ++c) {
      const int a = s * nc + c, bb = s * nc + (c + 1) % nc, cc = a + nc, d = bb + nc;
      for (int k : {a, bb, d, a, d, cc}) tris->push_back(static_cast<unsigned short>(k));
    }
  }
  b.geometry->addPrimitiveSet(tris);
  osg::ref_ptr<osg::Geode> g = new osg::Geode;
  g->addDrawable(b.geometry);
  body_xf[i]->addChild(g);
  beams.push_back(b);
}

void CaptureScene::Impl::updateBeam(BeamVisual& b, const Eigen::VectorXd& q) {
  const core::FlexibleBody& fb = model.flex[b.body];
  const Eigen::VectorXd delta = q.segment(fb.idx_q, fb.nf);
  const Vector3 d = fb.Phi_e * delta;    // tip displacement, link components
  const Vector3 th = fb.Delta_e * delta; // tip rotation (small angles)
  const double L = b.length;
  const int ns = BeamVisual::kStations, nc = BeamVisual::kSides;
  auto* verts = static_cast<osg::Vec3Array*>(b.geometry->getVertexArray());
  auto* normals = static_cast<osg::Vec3Array*>(b.geometry->getNormalArray());
  for (int s = 0; s < ns; ++s) {
    const double xi = double(s) / (ns - 1);
    // Hermite: clamped root, tip displacement and slope (dy/dx = θz, dz/dx = -θy).
    const double h1 = 3 * xi * xi - 2 * xi * xi * xi, h2 = L * (xi * xi * xi - xi * xi);
    const double dh1 = (6 * xi - 6 * xi * xi) / L, dh2 = 3 * xi * xi - 2 * xi;
    const Vector3 c = b.root + Vector3(xi * (L + d.x()), h1 * d.y() + h2 * th.z(), h1 * d.z() - h2 * th.y());
    const Vector3 tangent = Vector3(1, dh1 * d.y() + dh2 * th.z(), dh1 * d.z() - dh2 * th.y()).normalized();
    const Matrix3 R = alignZ(tangent);
    for (int k = 0; k < nc; ++k) {
      const double a = 2 * M_PI * k / nc;
      const Vector3 n = R * Vector3(std::cos(a), std::sin(a), 0);
      (*verts)[s * nc + k] = toOsg(b.X_body_link.act(c + b.radius * n));
      (*normals)[s * nc + k] = toOsg(b.X_body_link.R * n);
    }
  }
  verts->dirty();
  normals->dirty();
  b.geometry->dirtyBound();
}

void CaptureScene::Impl::buildPlate(int i) {
  const core::FlexibleBody& fb = model.flex[i];
  const core::Inertia& I = model.inertia[i];
  const Vector3 com = I.com();
  const Vector3 size = equivalentBox(I.m, I.inertiaAboutCom(), 0.01);
  PlateVisual p;
  p.body = i;
  // Span: the axis along which the centre of mass lies (the array hangs from its root there).
  int span = 0;
  com.cwiseAbs().maxCoeff(&span);
  if (com.norm() < 1e-9) size.maxCoeff(&span);
  // Width: the longer of the two other sides; the normal is the thinnest.
  const int o1 = (span + 1) % 3, o2 = (span + 2) % 3;
  const int width = size[o1] >= size[o2] ? o1 : o2;
  p.nu = 17;
  p.nw = 7;
  const double L = size[span];
  const double root = com[span] - 0.5 * L * (com[span] >= 0 ? 1 : -1);
  const double dir = com[span] >= 0 ? 1 : -1;
  const int nf = fb.nf;
  p.mode.assign(nf, {});
  // The modal participation L (rows: modes; columns v_x v_y v_z ω_x ω_y ω_z, body components).
  const Eigen::MatrixXd Lmat = fb.M_td.transpose();  // (nf x 6)
  for (int a = 0; a < p.nu; ++a) {
    for (int w = 0; w < p.nw; ++w) {
      const double xi = double(a) / (p.nu - 1);
      Vector3 x = com;
      x[span] = root + dir * xi * L;
      x[width] = com[width] + (double(w) / (p.nw - 1) - 0.5) * size[width];
      p.rest.push_back(x);
      for (int k = 0; k < nf; ++k) {
        const Vector3 Lv = Lmat.row(k).head<3>().transpose(), Lw = Lmat.row(k).tail<3>().transpose();
        Vector3 u = Vector3::Zero();
        if (Lv.norm() > 1e-9) {
          // Bending: the first cantilever shape, scaled so that ∫μ u = L_v.
          u = Lv / (I.m * 0.3915) * cantileverShape(xi);
        } else if (Lw.norm() > 1e-9) {
          // Twist about the span: θ(ξ) = B sin(πξ/2), with ∫ J' θ = L_ω.
          Vector3 axis = Vector3::Zero();
          axis[span] = 1;
          const double J = I.inertiaAboutCom()(span, span);
          const double B = Lw.dot(axis) / (J * 2 / M_PI);
          Vector3 r = x - com;
          r[span] = 0;
          u = (B * std::sin(M_PI * xi / 2)) * axis.cross(r);
        }
        p.mode[k].push_back(u);
      }
    }
  }
  p.surface = new osg::Geometry;
  p.surface->setUseDisplayList(false);
  p.surface->setUseVertexBufferObjects(true);
  p.surface->setDataVariance(osg::Object::DYNAMIC);
  p.surface->setVertexArray(new osg::Vec3Array(p.rest.size()));
  p.surface->setNormalArray(new osg::Vec3Array(p.rest.size()), osg::Array::BIND_PER_VERTEX);
  osg::ref_ptr<osg::Vec4Array> col = new osg::Vec4Array(1);
  (*col)[0] = rgba(ScenePalette::kArray);
  p.surface->setColorArray(col, osg::Array::BIND_OVERALL);
  osg::ref_ptr<osg::DrawElementsUShort> tris = new osg::DrawElementsUShort(GL_TRIANGLES);
  for (int a = 0; a + 1 < p.nu; ++a) {
    for (int w = 0; w + 1 < p.nw; ++w) {
      const int k = a * p.nw + w;
      for (int m : {k, k + p.nw, k + p.nw + 1, k, k + p.nw + 1, k + 1}) tris->push_back(static_cast<unsigned short>(m));
    }
  }
  p.surface->addPrimitiveSet(tris);
  p.surface->getOrCreateStateSet()->setAttributeAndModes(new osg::PolygonOffset(1, 1));
  // Cell lines: the grid's rows and columns, silver.
  p.lines = new osg::Geometry;
  p.lines->setUseDisplayList(false);
  p.lines->setDataVariance(osg::Object::DYNAMIC);
  p.lines->setVertexArray(p.surface->getVertexArray());
  osg::ref_ptr<osg::Vec4Array> lc = new osg::Vec4Array(1);
  (*lc)[0] = osg::Vec4(0.55f, 0.6f, 0.75f, 1);
  p.lines->setColorArray(lc, osg::Array::BIND_OVERALL);
  osg::ref_ptr<osg::DrawElementsUShort> lines = new osg::DrawElementsUShort(GL_LINES);
  for (int a = 0; a < p.nu; ++a) {
    for (int w = 0; w < p.nw; ++w) {
      const int k = a * p.nw + w;
      if (w + 1 < p.nw && (a == 0 || a + 1 == p.nu || a % 4 == 0)) {
        lines->push_back(static_cast<unsigned short>(k));
        lines->push_back(static_cast<unsigned short>(k + 1));
      }
      if (a + 1 < p.nu && (w == 0 || w + 1 == p.nw)) {
        lines->push_back(static_cast<unsigned short>(k));
        lines->push_back(static_cast<unsigned short>(k + p.nw));
      }
    }
  }
  p.lines->addPrimitiveSet(lines);
  p.lines->getOrCreateStateSet()->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
  osg::ref_ptr<osg::Geode> g = new osg::Geode;
  g->addDrawable(p.surface);
  g->addDrawable(p.lines);
  body_xf[i]->addChild(g);
  // The yoke: from the body origin to the array's root.
  Vector3 yoke_end = com;
  yoke_end[span] = root;
  if (auto n = cylinderBetween(Vector3::Zero(), yoke_end, 0.012 * scale, osg::Vec4(0.5f, 0.5f, 0.55f, 1))) {
    body_xf[i]->addChild(n);
  }
  plates.push_back(std::move(p));
}

void CaptureScene::Impl::updatePlate(PlateVisual& p, const Eigen::VectorXd& q) {
  const core::FlexibleBody& fb = model.flex[p.body];
  auto* verts = static_cast<osg::Vec3Array*>(p.surface->getVertexArray());
  auto* normals = static_cast<osg::Vec3Array*>(p.surface->getNormalArray());
  std::vector<Vector3> x(p.rest);
  for (int k = 0; k < fb.nf; ++k) {
    const double dk = q[fb.idx_q + k];
    for (std::size_t m = 0; m < x.size(); ++m) x[m] += dk * p.mode[k][m];
  }
  for (int a = 0; a < p.nu; ++a) {
    for (int w = 0; w < p.nw; ++w) {
      const int k = a * p.nw + w;
      const Vector3 du = x[std::min(a + 1, p.nu - 1) * p.nw + w] - x[std::max(a - 1, 0) * p.nw + w];
      const Vector3 dw = x[a * p.nw + std::min(w + 1, p.nw - 1)] - x[a * p.nw + std::max(w - 1, 0)];
      (*verts)[k] = toOsg(x[k]);
      (*normals)[k] = toOsg(du.cross(dw).normalized());
    }
  }
  verts->dirty();
  normals->dirty();
  p.surface->dirtyBound();
  p.lines->dirtyBound();
}

void CaptureScene::Impl::buildDebris() {
  debris_xf = new osg::MatrixTransform;
  debris_xf->setName("debris");
  debris_xf->setDataVariance(osg::Object::DYNAMIC);
  if (!scenario.debris.enabled) return;
  const core::DebrisSpec& d = scenario.debris;
  osg::ref_ptr<osg::Node> mesh;
  if (!d.mesh.empty()) {
    std::string path = d.mesh;
    if (!path.empty() && path[0] != '/' && !scenario.file.empty()) {
      path = scenario.file.substr(0, scenario.file.find_last_of('/') + 1) + path;
    }
    std::string error;
    mesh = loadMesh(path, &error);
    if (!mesh) warnings.push_back(error);
  }
  addDebrisShapes(debris_xf, mesh, nullptr);
  root->addChild(debris_xf);
  if (scenario.sensors.camera) buildEstimate(mesh);
}

// The debris' shapes in its body frame: its mesh (null: a box of its size with a dead apogee
// motor and a radiator band) and the grasp fixture. tint: every shape in that colour (the
// estimate's ghost), else in their own.
void CaptureScene::Impl::addDebrisShapes(osg::Group* into, const osg::ref_ptr<osg::Node>& mesh, const osg::Vec4* tint) {
  const core::DebrisSpec& d = scenario.debris;
  auto color = [tint](const osg::Vec4& own) { return tint ? *tint : own; };
  if (mesh) {
    into->addChild(mesh);
  } else {
    Vector3 size = d.size;
    if (size.minCoeff() <= 0) size = equivalentBox(d.properties.mass, d.properties.inertia, 0.2);
    into->addChild(shape(new osg::Box(osg::Vec3(), float(size.x()), float(size.y()), float(size.z())),
                         color(rgba(ScenePalette::kDebris))));
    // A dead apogee motor, opposite the grasp point, and a dark radiator band.
    const Vector3 t = d.properties.target_B;
    if (t.norm() > 1e-6) {
      const Vector3 n = -t.normalized();
      const double half = 0.5 * std::abs(n.dot(size));
      if (auto c = cylinderBetween(n * half, n * (half + 0.25), 0.18, color(osg::Vec4(0.25f, 0.25f, 0.27f, 1)))) {
        into->addChild(c);
      }
    }
    into->addChild(shape(new osg::Box(osg::Vec3(), float(size.x() * 1.01), float(size.y() * 1.01), float(size.z() * 0.12)),
                         color(osg::Vec4(0.85f, 0.86f, 0.9f, 1))));
  }
  // The grasp fixture: a handle and a red ball at the grasp point.
  const Vector3 t = d.properties.target_B;
  if (t.norm() > 1e-6) {
    if (auto c = cylinderBetween(t * 0.9, t, 0.03, color(osg::Vec4(0.6f, 0.6f, 0.62f, 1)))) into->addChild(c);
  }
  osg::ref_ptr<osg::MatrixTransform> ball = new osg::MatrixTransform(osg::Matrixd::translate(toOsg(t)));
  ball->addChild(shape(new osg::Sphere(osg::Vec3(), 0.08f), color(rgba(ScenePalette::kGrasp))));
  into->addChild(ball);
}

// The estimate's ghost: the debris' shapes, translucent pale green, drawn a little in front of
// coincident true faces (polygon offset) and not hiding what is behind (no depth writes). Its 3σ
// ellipsoid: violet, drawn over everything, since it sits inside the opaque true debris.
void CaptureScene::Impl::buildEstimate(const osg::ref_ptr<osg::Node>& mesh) {
  estimate_sw = new osg::Switch;
  estimate_sw->setName("estimate");
  ghost_xf = new osg::MatrixTransform;
  ghost_xf->setName("debris_estimate");
  ghost_xf->setDataVariance(osg::Object::DYNAMIC);
  const osg::Vec4 tint(0.55f, 1.0f, 0.6f, 0.3f);
  addDebrisShapes(ghost_xf, mesh, &tint);
  osg::StateSet* gs = ghost_xf->getOrCreateStateSet();
  gs->setMode(GL_BLEND, osg::StateAttribute::ON);
  gs->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  gs->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0, 1, false));
  gs->setAttributeAndModes(new osg::PolygonOffset(-1, -4));
  if (mesh) {  // the mesh's own materials overridden by the tint
    osg::ref_ptr<osg::Material> material = new osg::Material;
    material->setDiffuse(osg::Material::FRONT_AND_BACK, tint);
    material->setAmbient(osg::Material::FRONT_AND_BACK, tint);
    gs->setAttributeAndModes(material, osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
  }
  estimate_ellipsoid_xf = new osg::MatrixTransform;
  estimate_ellipsoid_xf->setName("estimate_ellipsoid");
  estimate_ellipsoid_xf->setDataVariance(osg::Object::DYNAMIC);
  osg::ref_ptr<osg::Node> ball = shape(new osg::Sphere(osg::Vec3(), 1.0f), osg::Vec4(0.7f, 0.4f, 1.0f, 0.55f));
  osg::StateSet* es = ball->getOrCreateStateSet();
  es->setMode(GL_BLEND, osg::StateAttribute::ON);
  es->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
  es->setRenderBinDetails(20, "DepthSortedBin");
  es->setMode(GL_RESCALE_NORMAL, osg::StateAttribute::ON);
  estimate_ellipsoid_xf->addChild(ball);
  estimate_sw->addChild(ghost_xf, false);
  estimate_sw->addChild(estimate_ellipsoid_xf, false);
  root->addChild(estimate_sw);
}

// The ghost at the estimated pose and the ellipsoid {r̂ + A u : |u| <= 1} with A Aᵀ = 9 P_r, A's
// columns the covariance's eigenvectors times 3 √λ.
void CaptureScene::Impl::updateEstimate(const Snapshot& s) {
  estimate_axes.setZero();
  estimate_shown = estimate_sw.valid() && options.estimate && s.has_estimate;
  if (!estimate_sw) return;
  estimate_sw->setValue(0, estimate_shown);
  estimate_sw->setValue(1, estimate_shown);
  if (!estimate_shown) return;
  ghost_xf->setMatrix(toOsg(Transform{core::quatToMatrix(s.estimate_Q_WB.normalized()), s.estimate_r_W}));
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(s.estimate_P_r);
  for (int k = 0; k < 3; ++k) {
    estimate_axes.col(k) = eig.eigenvectors().col(k) * 3 * std::sqrt(std::max(0.0, eig.eigenvalues()[k]));
  }
  osg::Matrixd M = osg::Matrixd::identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) M(c, r) = estimate_axes(r, c);  // OSG: row vectors
  }
  const Vector3& r = s.estimate_r_W;
  estimate_ellipsoid_xf->setMatrix(M * osg::Matrixd::translate(r.x(), r.y(), r.z()));
}

void CaptureScene::Impl::buildStars() {
  stars_sw = new osg::Switch;
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  std::mt19937 rng(7);  // the same sky every time
  std::normal_distribution<double> n(0, 1);
  std::uniform_real_distribution<double> u(0.25, 1.0);
  const double R = 400;
  for (int k = 0; k < 1500; ++k) {
    Vector3 p(n(rng), n(rng), n(rng));
    v->push_back(toOsg(R * p.normalized()));
    const float b = float(std::pow(u(rng), 2.0));
    c->push_back(osg::Vec4(b, b, std::min(1.0f, b * 1.1f), 1));
  }
  g->setVertexArray(v);
  g->setColorArray(c, osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_POINTS, 0, static_cast<GLsizei>(v->size())));
  osg::StateSet* ss = g->getOrCreateStateSet();
  ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
  ss->setAttributeAndModes(new osg::Point(1.6f));
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g);
  // The sky does not count in the scene's bound (camera homes on the chaser and the debris).
  geode->setCullingActive(false);
  stars_sw->addChild(geode);
  root->addChild(stars_sw);
}

void CaptureScene::Impl::placeArrow(osg::MatrixTransform* xf, const Vector3& at, const Vector3& vec, double length) {
  if (!(length > 1e-6) || vec.norm() < 1e-12) {
    xf->setNodeMask(0);
    return;
  }
  xf->setNodeMask(~0u);
  const double w = std::max(0.6, std::min(1.5, length)) * scale / 2.5;
  xf->setMatrix(osg::Matrixd::scale(w, w, length) * toOsg(Transform{alignZ(vec), at}));
}

void CaptureScene::Impl::applyOptions() {
  frames_sw->setValue(0, options.frames);
  if (options.velocities) vel_sw->setAllChildrenOn(); else vel_sw->setAllChildrenOff();
  if (options.momentum) mom_sw->setAllChildrenOn(); else mom_sw->setAllChildrenOff();
  com_sw->setValue(0, options.com);
  paths_sw->setValue(0, options.paths);
  stars_sw->setValue(0, options.stars);
  earth_sw->setValue(0, options.earth);
  ellipsoid_sw->setValue(0, options.ellipsoid);
  updateEstimate(last);
  plan_sw->setValue(0, options.plan);
  window_sw->setValue(0, options.window);
  trail_sw->setValue(0, options.trail);
  path_planned->setNodeMask(options.plan && !plan.empty() ? 0 : ~0u);
  for (osg::Switch* sw : geometry_sw) {
    sw->setValue(0, !options.collision);
    sw->setValue(1, options.collision);
  }
  if (options.workspace && workspace_points.empty() && ee_frame >= 0) buildWorkspace();
  if (workspace_sw->getNumChildren() > 0) workspace_sw->setValue(0, options.workspace);
}

// The workspace cloud, sampled once (the joints within their limits, the base at rest at the
// origin, modes at zero: core::workspaceCloud) and hung under the base, which carries it.
void CaptureScene::Impl::buildWorkspace() {
  workspace_points = core::workspaceCloud(model, core::neutralConfiguration(model), ee_frame, kWorkspaceSamples);
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  for (const Vector3& p : workspace_points) v->push_back(osg::Vec3(p.x(), p.y(), p.z()));
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setName("workspace");
  g->setVertexArray(v);
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  c->push_back(osg::Vec4(0.45f, 0.85f, 1.0f, 0.45f));
  g->setColorArray(c, osg::Array::BIND_OVERALL);
  g->addPrimitiveSet(new osg::DrawArrays(GL_POINTS, 0, static_cast<int>(v->size())));
  osg::StateSet* ss = g->getOrCreateStateSet();
  ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
  ss->setMode(GL_BLEND, osg::StateAttribute::ON);
  ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  ss->setAttribute(new osg::Point(2.0f));
  workspace_sw->addChild(g, options.workspace);
}

CaptureScene::CaptureScene(const core::Model& model, const core::Scenario& scenario, const std::string& asset_dir)
    : impl_(std::make_unique<Impl>(model, scenario)) {
  impl_->build(asset_dir);
}

CaptureScene::~CaptureScene() = default;

osg::Node* CaptureScene::root() const { return impl_->root.get(); }
const std::vector<std::string>& CaptureScene::warnings() const { return impl_->warnings; }

void CaptureScene::update(const Snapshot& s) {
  Impl& m = *impl_;
  m.last = s;
  if (s.q.size() != m.model.nq) return;
  m.q_display = s.q;
  for (const core::FlexibleBody& fb : m.model.flex) {
    if (fb.nf > 0) m.q_display.segment(fb.idx_q, fb.nf) *= m.exaggeration;
  }
  core::forwardKinematics(m.model, m.data, m.q_display);
  for (int i = 0; i < m.model.nbodies; ++i) m.body_xf[i]->setMatrix(toOsg(m.data.X_world[i]));
  for (BeamVisual& b : m.beams) m.updateBeam(b, m.q_display);
  for (PlateVisual& p : m.plates) m.updatePlate(p, m.q_display);
  if (s.has_debris) {
    m.debris_xf->setMatrix(toOsg(Transform{core::quatToMatrix(s.debris.Q_WB), s.debris.r_W}));
  }
  m.updateEstimate(s);
  m.com_xf->setMatrix(osg::Matrixd::translate(toOsg(s.com_W)));
  // Vectors: velocities at 10 s of travel, momenta as the centre of mass velocity (P / m) at the
  // same scale and L / (m r²) with r the arm size.
  const Transform& X0 = m.data.X_world[0];
  if (s.v.size() >= 6 && m.model.hasFreeBase()) {
    const Vector3 v_base = X0.R * s.v.head<3>();
    m.placeArrow(m.v_base_xf, X0.p, v_base, std::min(8.0, 10 * v_base.norm()));
  } else {
    m.v_base_xf->setNodeMask(0);
  }
  if (s.has_debris) {
    m.placeArrow(m.v_debris_xf, s.debris.r_W, s.debris.v_W, std::min(8.0, 10 * s.debris.v_W.norm()));
  } else {
    m.v_debris_xf->setNodeMask(0);
  }
  double mass = m.model.totalMass() + (s.has_debris ? m.scenario.debris.properties.mass : 0.0);
  mass = std::max(mass, 1e-9);
  m.placeArrow(m.p_xf, s.com_W, s.P_W, std::min(8.0, 10 * s.P_W.norm() / mass));
  m.placeArrow(m.l_xf, s.com_W, s.L_W, std::min(8.0, 10 * s.L_W.norm() / (mass * m.scale * m.scale)));
  // The manipulability ellipsoid at the hand, of the rigid-equivalent arm (modes at zero).
  m.ellipsoid_axes.setZero();
  if (m.options.ellipsoid && m.ee_frame >= 0) {
    Eigen::VectorXd q_rigid = s.q;
    for (const core::FlexibleBody& fb : m.model.flex) {
      if (fb.nf > 0) q_rigid.segment(fb.idx_q, fb.nf).setZero();
    }
    core::ManipulabilityOptions o;
    o.frame = m.ee_frame;
    o.jacobian = m.model.base_mode == core::BaseMode::kFloating ? core::ManipulabilityJacobian::kGeneralized
                                                                 : core::ManipulabilityJacobian::kFixedBase;
    try {
      const core::ManipulabilityEllipsoid e = core::manipulabilityEllipsoid(m.model, q_rigid, o);
      for (int k = 0; k < 3 && k < e.radii.size(); ++k) m.ellipsoid_axes.col(k) = e.axes.col(k) * e.radii[k];
      osg::Matrixd M = osg::Matrixd::identity();
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) M(c, r) = m.ellipsoid_axes(r, c);  // OSG: row vectors
      }
      const Vector3 at = core::framePose(m.model, m.data, m.ee_frame).p;
      m.ellipsoid_xf->setMatrix(M * osg::Matrixd::translate(toOsg(at)));
    } catch (const std::exception&) {
      m.ellipsoid_axes.setZero();
    }
  }
  // The hand's error vector: from the drawn hand to the debris' grasp point.
  if (s.has_debris && m.ee_frame >= 0) {
    m.hand_error_from = core::framePose(m.model, m.data, m.ee_frame).p;
    m.hand_error_to = core::targetKinematics(m.scenario.debris.properties, s.debris).position;
    setLineVertices(m.hand_error, {m.hand_error_from, m.hand_error_to});
  }
  // The Earth: below, along -r̂(t); the arrow starts under the bus.
  const Vector3 down = -m.environment.radialDirection(s.time);
  m.placeArrow(m.earth_xf, X0.p + down * (0.8 * m.scale), down, 0.7 * m.scale);
}

void CaptureScene::setExaggeration(double factor) { impl_->exaggeration = factor; }
double CaptureScene::exaggeration() const { return impl_->exaggeration; }

void CaptureScene::setOptions(const SceneOptions& options) {
  impl_->options = options;
  impl_->applyOptions();
}
const SceneOptions& CaptureScene::options() const { return impl_->options; }

void CaptureScene::setPaths(const std::vector<Vector3>& actual, const std::vector<Vector3>& planned) {
  setLineVertices(impl_->path_actual, actual);
  setLineVertices(impl_->path_planned, planned);
}

std::array<float, 3> marginColor(double margin) {
  if (std::isnan(margin)) return {0.55f, 0.55f, 0.55f};
  // Piecewise linear through red (0), orange, yellow (kMarginWarning) and green (kMarginGood).
  const float red[3] = {0.95f, 0.12f, 0.10f}, yellow[3] = {0.98f, 0.88f, 0.12f}, green[3] = {0.15f, 0.85f, 0.30f};
  const float* a = red;
  const float* b = yellow;
  double w = margin / kMarginWarning;
  if (margin >= kMarginWarning) {
    a = yellow;
    b = green;
    w = (margin - kMarginWarning) / (kMarginGood - kMarginWarning);
  }
  w = std::clamp(w, 0.0, 1.0);
  std::array<float, 3> c;
  for (int k = 0; k < 3; ++k) c[k] = float((1 - w) * a[k] + w * b[k]);
  return c;
}

void CaptureScene::setPlan(const PlanOverlay* plan) {
  Impl& m = *impl_;
  const int number = plan != nullptr ? plan->number : 0;
  if (number == m.plan.number) return;  // drawn already
  m.plan = plan != nullptr ? *plan : PlanOverlay{};
  setLineVertices(m.plan_path, m.plan.path);
  auto* colors = static_cast<osg::Vec4Array*>(m.plan_path->getColorArray());
  colors->resize(m.plan.path.size());
  for (std::size_t k = 0; k < m.plan.path.size(); ++k) {
    const std::array<float, 3> c = marginColor(m.plan.margins[k]);
    (*colors)[k] = osg::Vec4(c[0], c[1], c[2], 1);
  }
  colors->dirty();
  auto place = [](osg::MatrixTransform* xf, const Vector3& at) {
    xf->setNodeMask(at.allFinite() ? ~0u : 0u);
    if (at.allFinite()) xf->setMatrix(osg::Matrixd::translate(toOsg(at)));
  };
  place(m.meeting_xf, m.plan.grasp);
  place(m.standoff_xf, m.plan.standoff);
  place(m.approach_xf, m.plan.approach);
  m.applyOptions();
}

void CaptureScene::setBaseTrail(const std::vector<core::Transform>& poses) {
  Impl& m = *impl_;
  const double L = m.trail_length;
  auto* axes_colors = static_cast<osg::Vec4Array*>(m.trail_axes->getColorArray());
  std::vector<Vector3> axes, tips;
  axes_colors->clear();
  const osg::Vec4 axis_color[3] = {{1, 0.25f, 0.25f, 1}, {0.3f, 1, 0.3f, 1}, {0.35f, 0.55f, 1, 1}};
  if (!poses.empty()) {
    const core::Transform& X = poses.back();
    for (int a = 0; a < 3; ++a) {
      axes.push_back(X.p);
      axes.push_back(X.p + L * X.R.col(a));
      axes_colors->push_back(axis_color[a]);
      axes_colors->push_back(axis_color[a]);
    }
  }
  setLineVertices(m.trail_axes, axes);
  axes_colors->dirty();
  for (int a = 0; a < 3; ++a) {
    tips.clear();
    for (const core::Transform& X : poses) tips.push_back(X.p + L * X.R.col(a));
    setLineVertices(m.trail_tips[a], tips);
    auto* c = static_cast<osg::Vec4Array*>(m.trail_tips[a]->getColorArray());
    c->resize(tips.size());
    for (std::size_t k = 0; k < tips.size(); ++k) {  // fading: the oldest at 15 % opacity
      const float age = tips.size() > 1 ? float(tips.size() - 1 - k) / float(tips.size() - 1) : 0.0f;
      (*c)[k] = osg::Vec4(axis_color[a].r(), axis_color[a].g(), axis_color[a].b(), 1.0f - 0.85f * age);
    }
    c->dirty();
  }
}

double CaptureScene::trailAxisLength() const { return impl_->trail_length; }

Eigen::Matrix3d CaptureScene::ellipsoidAxes() const { return impl_->ellipsoid_axes; }
Eigen::Matrix3d CaptureScene::estimateEllipsoidAxes() const { return impl_->estimate_axes; }
bool CaptureScene::estimateShown() const { return impl_->estimate_shown; }
std::pair<Vector3, Vector3> CaptureScene::handErrorVector() const { return {impl_->hand_error_from, impl_->hand_error_to}; }
const std::vector<Vector3>& CaptureScene::workspacePoints() const { return impl_->workspace_points; }

Vector3 CaptureScene::endEffectorPosition() const {
  const Impl& m = *impl_;
  if (m.ee_frame < 0) return m.data.X_world[0].p;
  return core::framePose(m.model, m.data, m.ee_frame).p;
}
Vector3 CaptureScene::basePosition() const { return impl_->data.X_world[0].p; }
Vector3 CaptureScene::debrisPosition() const {
  return impl_->last.has_debris ? impl_->last.debris.r_W : basePosition();
}
bool CaptureScene::hasDebris() const { return impl_->scenario.debris.enabled; }
int CaptureScene::endEffectorFrame() const { return impl_->ee_frame; }

double CaptureScene::sceneRadius() const {
  const Impl& m = *impl_;
  double r = 0;
  const Vector3 c = 0.5 * (basePosition() + debrisPosition());
  for (int i = 0; i < m.model.nbodies; ++i) r = std::max(r, (m.data.X_world[i].p - c).norm());
  if (m.last.has_debris) r = std::max(r, (m.last.debris.r_W - c).norm() + m.scenario.debris.size.norm() / 2);
  return r + 1.5 * m.scale;
}

std::string CaptureScene::describePick(const std::vector<osg::Node*>& path) const {
  const Impl& m = *impl_;
  char buf[512];
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const std::string& name = (*it)->getName();
    if (name.rfind("body:", 0) == 0) {
      const int i = std::stoi(name.substr(5));
      if (i < 0 || i >= m.model.nbodies) return {};
      const Transform& X = m.data.X_world[i];
      const Vector3 rpy = core::matrixToRpy(X.R) * 180 / M_PI;
      std::snprintf(buf, sizeof buf,
                    "%s: %.2f kg, position [%.3f, %.3f, %.3f] m, attitude roll %.1f pitch %.1f yaw %.1f deg",
                    m.model.body_name[i].c_str(), m.model.inertia[i].m, X.p.x(), X.p.y(), X.p.z(), rpy.x(),
                    rpy.y(), rpy.z());
      return buf;
    }
    if (name == "capture_window" || name == "standoff" || name == "approach") {
      const PlanOverlay& p = m.plan;
      const Vector3& x = name == "capture_window" ? p.grasp : name == "standoff" ? p.standoff : p.approach;
      const double t = name == "capture_window" ? p.meeting : name == "standoff" ? p.start : p.rendezvous;
      const char* what = name == "capture_window" ? "capture window: the hand meets the grasp point"
                         : name == "standoff"     ? "stand-off pose: the hand where the plan starts"
                                                  : "approach point: the plan's first stage ends on the grasp axis";
      std::snprintf(buf, sizeof buf, "%s at t = %.3f s, at [%.3f, %.3f, %.3f] m; plan %d, smallest predicted margin %.2f (%s)",
                    what, t, x.x(), x.y(), x.z(), p.number, p.margin, p.limiting.empty() ? "not checked" : p.limiting.c_str());
      return buf;
    }
    if (name == "debris" && m.last.has_debris) {
      const core::DebrisState& d = m.last.debris;
      const Vector3 rpy = core::matrixToRpy(core::quatToMatrix(d.Q_WB)) * 180 / M_PI;
      std::snprintf(buf, sizeof buf,
                    "debris: %.1f kg, position [%.3f, %.3f, %.3f] m, attitude roll %.1f pitch %.1f yaw %.1f deg, "
                    "rate %.2f deg/s",
                    m.scenario.debris.properties.mass, d.r_W.x(), d.r_W.y(), d.r_W.z(), rpy.x(), rpy.y(), rpy.z(),
                    d.w_B.norm() * 180 / M_PI);
      return buf;
    }
  }
  return {};
}

}  // namespace grapple::render
