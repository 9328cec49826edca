#include "core/geometry/collision.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace grapple::core {

ConvexShape ConvexShape::box(const Vector3& half, const Transform& pose) {
  ConvexShape s;
  s.core = Core::kBox;
  s.half = half;
  s.pose = pose;
  return s;
}

ConvexShape ConvexShape::sphere(double radius, const Transform& pose) {
  ConvexShape s;
  s.core = Core::kPoint;
  s.radius = radius;
  s.pose = pose;
  return s;
}

Vector3 ConvexShape::support(const Vector3& d_world) const {
  const Vector3 d = pose.R.transpose() * d_world;
  auto sign = [](double x) { return x < 0 ? -1.0 : 1.0; };
  Vector3 p = Vector3::Zero();
  switch (core) {
    case Core::kPoint: break;
    case Core::kSegment: p.z() = sign(d.z()) * half.z(); break;
    case Core::kBox: p = Vector3(sign(d.x()) * half.x(), sign(d.y()) * half.y(), sign(d.z()) * half.z()); break;
    case Core::kCylinder: {
      const double n = std::hypot(d.x(), d.y());
      if (n > 0) p.head<2>() = half.x() / n * d.head<2>();
      else p.x() = half.x();
      p.z() = sign(d.z()) * half.y();
      break;
    }
    case Core::kHull: {
      // argmax over the points of (S x)·d = x·(S d).
      const Vector3 sd = scale.cwiseProduct(d);
      double best = -INFINITY;
      for (const Vector3& x : *points) {
        if (const double s = x.dot(sd); s > best) {
          best = s;
          p = x;
        }
      }
      p = scale.cwiseProduct(p);
      break;
    }
  }
  return pose.act(p);
}

namespace {

std::vector<Vector3> readStl(const std::string& path, const std::string& bytes) {
  std::vector<Vector3> out;
  // Binary: 80-byte header, a triangle count, 50 bytes per triangle (normal, 3 vertices, 2 bytes).
  if (bytes.size() >= 84) {
    std::uint32_t n = 0;
    std::memcpy(&n, bytes.data() + 80, 4);
    if (bytes.size() == 84 + 50 * static_cast<std::size_t>(n)) {
      out.reserve(3 * std::size_t{n});
      for (std::size_t t = 0; t < n; ++t) {
        for (int v = 0; v < 3; ++v) {
          float x[3];
          std::memcpy(x, bytes.data() + 84 + 50 * t + 12 * (v + 1), 12);
          out.emplace_back(x[0], x[1], x[2]);
        }
      }
      return out;
    }
  }
  if (bytes.compare(0, 5, "solid") != 0) {
    throw std::runtime_error(path + ": neither a binary STL (its size does not match its triangle count) nor an ASCII one");
  }
  std::istringstream in(bytes);
  std::string word;
  while (in >> word) {
    if (word != "vertex") continue;
    Vector3 x;
    if (!(in >> x.x() >> x.y() >> x.z())) throw std::runtime_error(path + ": a 'vertex' without three numbers");
    out.push_back(x);
  }
  return out;
}

std::vector<Vector3> readObj(const std::string& path, const std::string& bytes) {
  std::vector<Vector3> out;
  std::istringstream in(bytes);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.size() < 2 || line[0] != 'v' || (line[1] != ' ' && line[1] != '\t')) continue;
    std::istringstream l(line.substr(2));
    Vector3 x;
    if (!(l >> x.x() >> x.y() >> x.z())) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": a vertex 'v' without three numbers");
    }
    out.push_back(x);
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::shared_ptr<const std::vector<Vector3>> meshVertices(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const std::vector<Vector3>>> cache;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(path); it != cache.end()) return it->second;
  }
  const std::string ext = lower(path.substr(path.find_last_of('.') == std::string::npos ? path.size() : path.find_last_of('.')));
  if (ext != ".stl" && ext != ".obj") {
    throw std::runtime_error(path + ": only STL and OBJ meshes are read for collision checks");
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot be read");
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<Vector3> v = ext == ".stl" ? readStl(path, bytes) : readObj(path, bytes);
  if (v.empty()) throw std::runtime_error(path + ": no vertices");
  for (const Vector3& x : v) {
    if (!x.allFinite()) throw std::runtime_error(path + ": a vertex is not finite");
  }
  auto less = [](const Vector3& a, const Vector3& b) {
    return std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3);
  };
  std::sort(v.begin(), v.end(), less);
  v.erase(std::unique(v.begin(), v.end()), v.end());
  auto shared = std::make_shared<const std::vector<Vector3>>(std::move(v));
  const std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(path, std::move(shared)).first->second;
}

std::optional<ConvexShape> convexShape(const Geometry& g, std::string* why) {
  ConvexShape s;
  s.pose = g.origin;
  switch (g.type) {
    case ShapeType::kBox: s.core = ConvexShape::Core::kBox; s.half = 0.5 * g.size; break;
    case ShapeType::kCylinder:
      s.core = ConvexShape::Core::kCylinder;
      s.half = Vector3(g.size.x(), 0.5 * g.size.y(), 0);
      break;
    case ShapeType::kSphere: s.core = ConvexShape::Core::kPoint; s.radius = g.size.x(); break;
    case ShapeType::kCapsule:
      s.core = ConvexShape::Core::kSegment;
      s.half = Vector3(0, 0, 0.5 * g.size.y());
      s.radius = g.size.x();
      break;
    case ShapeType::kMesh:
      if (g.mesh_path.empty()) {
        if (why) *why = "not found";
        return std::nullopt;
      }
      try {
        s.points = meshVertices(g.mesh_path);
      } catch (const std::exception& e) {
        if (why) *why = e.what();
        return std::nullopt;
      }
      s.core = ConvexShape::Core::kHull;
      s.scale = g.scale;
      break;
  }
  return s;
}

namespace {

// A vertex of the simplex in the Minkowski difference A - B: w = a - b.
struct Vertex {
  Vector3 w, a, b;
};

// The point of segment, triangle or tetrahedron s[0..n) nearest the origin: the simplex is reduced
// to the vertices whose convex hull holds that point, with their barycentric weights. Returns
// false when the origin lies inside the tetrahedron.
bool nearest(std::array<Vertex, 4>& s, int& n, std::array<double, 4>& lambda);

void keep(std::array<Vertex, 4>& s, int& n, std::array<double, 4>& lambda,
          std::initializer_list<std::pair<int, double>> kept) {
  std::array<Vertex, 4> t = s;
  int k = 0;
  for (const auto& [i, l] : kept) {
    s[k] = t[i];
    lambda[k++] = l;
  }
  n = k;
}

void nearestSegment(std::array<Vertex, 4>& s, int& n, std::array<double, 4>& lambda, int i, int j) {
  const Vector3 A = s[i].w, ab = s[j].w - A;
  const double den = ab.squaredNorm();
  const double t = den > 0 ? -A.dot(ab) / den : 0;
  if (t <= 0) keep(s, n, lambda, {{i, 1}});
  else if (t >= 1) keep(s, n, lambda, {{j, 1}});
  else keep(s, n, lambda, {{i, 1 - t}, {j, t}});
}

// Ericson §5.1.5 with the query point at the origin.
void nearestTriangle(std::array<Vertex, 4>& s, int& n, std::array<double, 4>& lambda, int i, int j, int k) {
  const Vector3 A = s[i].w, B = s[j].w, C = s[k].w;
  const Vector3 ab = B - A, ac = C - A;
  const double d1 = -ab.dot(A), d2 = -ac.dot(A);
  if (d1 <= 0 && d2 <= 0) return keep(s, n, lambda, {{i, 1}});
  const double d3 = -ab.dot(B), d4 = -ac.dot(B);
  if (d3 >= 0 && d4 <= d3) return keep(s, n, lambda, {{j, 1}});
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double t = d1 / (d1 - d3);
    return keep(s, n, lambda, {{i, 1 - t}, {j, t}});
  }
  const double d5 = -ab.dot(C), d6 = -ac.dot(C);
  if (d6 >= 0 && d5 <= d6) return keep(s, n, lambda, {{k, 1}});
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double t = d2 / (d2 - d6);
    return keep(s, n, lambda, {{i, 1 - t}, {k, t}});
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return keep(s, n, lambda, {{j, 1 - t}, {k, t}});
  }
  const double den = va + vb + vc;
  if (!(den > 0)) return nearestSegment(s, n, lambda, i, j);  // degenerate (collinear)
  const double v = vb / den, w = vc / den;
  keep(s, n, lambda, {{i, 1 - v - w}, {j, v}, {k, w}});
}

Vector3 point(const std::array<Vertex, 4>& s, int n, const std::array<double, 4>& lambda) {
  Vector3 p = Vector3::Zero();
  for (int k = 0; k < n; ++k) p += lambda[k] * s[k].w;
  return p;
}

bool nearest(std::array<Vertex, 4>& s, int& n, std::array<double, 4>& lambda) {
  if (n == 1) {
    lambda[0] = 1;
  } else if (n == 2) {
    nearestSegment(s, n, lambda, 0, 1);
  } else if (n == 3) {
    nearestTriangle(s, n, lambda, 0, 1, 2);
  } else {
    // Inside when the origin is on the fourth vertex's side of every face (a flat tetrahedron
    // holds nothing); otherwise the nearest point is on a face the origin sees.
    static constexpr int faces[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    bool inside = true;
    double best = INFINITY;
    std::array<Vertex, 4> best_s{};
    std::array<double, 4> best_l{};
    int best_n = 0;
    for (const auto& f : faces) {
      const Vector3 A = s[f[0]].w;
      const Vector3 normal = (s[f[1]].w - A).cross(s[f[2]].w - A);
      const double side_o = -A.dot(normal), side_d = (s[f[3]].w - A).dot(normal);
      if (side_o * side_d > 0) continue;  // the origin is on the tetrahedron's side of this face
      inside = false;
      std::array<Vertex, 4> t = s;
      int m = 4;
      std::array<double, 4> l{};
      nearestTriangle(t, m, l, f[0], f[1], f[2]);
      if (const double d = point(t, m, l).squaredNorm(); d < best) {
        best = d;
        best_s = t;
        best_l = l;
        best_n = m;
      }
    }
    if (inside) return false;
    s = best_s;
    lambda = best_l;
    n = best_n;
  }
  return true;
}

}  // namespace

ShapeDistance shapeDistance(const ConvexShape& A, const ConvexShape& B) {
  auto vertex = [&](const Vector3& d) {  // support of A - B in direction d
    const Vector3 a = A.support(d), b = B.support(-d);
    return Vertex{a - b, a, b};
  };
  std::array<Vertex, 4> s{};
  std::array<double, 4> lambda{1, 0, 0, 0};
  int n = 1;
  Vector3 d = A.pose.p - B.pose.p;
  if (d.squaredNorm() == 0) d = Vector3::UnitX();
  s[0] = vertex(-d);
  Vector3 v = s[0].w;
  bool overlap = false;
  for (int iter = 0; iter < 128; ++iter) {
    const double vv = v.squaredNorm();
    if (vv <= 1e-24) {
      overlap = true;
      break;
    }
    const Vertex w = vertex(-v);
    // |v| bounds the distance from above, v·w/|v| from below.
    if (vv - v.dot(w.w) <= 1e-10 * std::sqrt(vv)) break;
    bool repeated = false;
    for (int k = 0; k < n; ++k) repeated = repeated || (s[k].w - w.w).squaredNorm() <= 1e-28;
    if (repeated) break;
    const std::array<Vertex, 4> s_prev = s;
    const std::array<double, 4> l_prev = lambda;
    const int n_prev = n;
    s[n++] = w;
    if (!nearest(s, n, lambda)) {
      overlap = true;
      break;
    }
    const Vector3 v_new = point(s, n, lambda);
    if (v_new.squaredNorm() >= vv) {  // no progress (rounding): keep the previous simplex
      s = s_prev;
      lambda = l_prev;
      n = n_prev;
      break;
    }
    v = v_new;
  }
  ShapeDistance out;
  if (overlap) {
    out.distance = -(A.radius + B.radius);
    return out;
  }
  Vector3 a = Vector3::Zero(), b = Vector3::Zero();
  for (int k = 0; k < n; ++k) {
    a += lambda[k] * s[k].a;
    b += lambda[k] * s[k].b;
  }
  const double core = v.norm();
  const Vector3 u = v / core;  // from B towards A
  out.distance = core - A.radius - B.radius;
  out.on_a = a - A.radius * u;
  out.on_b = b + B.radius * u;
  return out;
}

std::vector<std::string> collisionWarnings(const Model& model) {
  // One warning per mesh and reason, naming every link that uses it (a foot mesh shared by four
  // legs is one warning), in the order the meshes first appear.
  std::vector<std::pair<std::string, std::vector<std::string>>> unusable;
  for (const Geometry& g : model.collision) {
    std::string why;
    if (convexShape(g, &why)) continue;
    const std::string what = "collision mesh '" + g.mesh_uri + "': " + why;
    auto it = std::find_if(unusable.begin(), unusable.end(),
                           [&](const auto& u) { return u.first == what; });
    if (it == unusable.end()) {
      it = unusable.emplace(unusable.end(), what, std::vector<std::string>{});
    }
    if (std::find(it->second.begin(), it->second.end(), g.link) == it->second.end()) {
      it->second.push_back(g.link);
    }
  }
  std::vector<std::string> out;
  for (const auto& [what, links] : unusable) {
    std::string names;
    for (const std::string& l : links) names += (names.empty() ? "'" : ", '") + l + "'";
    out.push_back("warning: " + what + "; the clearance checks use the capsule of link" +
                  (links.size() > 1 ? "s " : " ") + names + " instead");
  }
  return out;
}

ChainCollision::ChainCollision(const Model& model, std::vector<int> chain, double radius)
    : chain_(std::move(chain)), radius_(radius), shapes_(chain_.size()) {
  for (const Geometry& g : model.collision) {
    const std::optional<ConvexShape> s = convexShape(g);
    if (!s) continue;
    if (g.body == 0) base_.push_back(*s);
    for (std::size_t k = 0; k < chain_.size(); ++k) {
      if (chain_[k] == g.body) shapes_[k].push_back(*s);
    }
  }
}

std::vector<ConvexShape> ChainCollision::baseShapes(const Data& d) const {
  std::vector<ConvexShape> out = base_;
  for (ConvexShape& s : out) s.pose = d.X_world[0] * s.pose;
  return out;
}

double ChainCollision::clearance(const Data& d, const Vector3& end, const std::vector<ConvexShape>& obstacles,
                                 std::size_t from, const std::function<bool(const Vector3&)>& exempt) const {
  double clearance = INFINITY;
  for (std::size_t k = from; k < chain_.size(); ++k) {
    if (!shapes_[k].empty()) {
      for (ConvexShape s : shapes_[k]) {
        s.pose = d.X_world[chain_[k]] * s.pose;
        for (const ConvexShape& o : obstacles) {
          const ShapeDistance sd = shapeDistance(s, o);
          const bool apart = sd.distance > -(s.radius + o.radius);
          if (exempt && exempt(apart ? sd.on_a : s.pose.p)) continue;
          clearance = std::min(clearance, sd.distance);
        }
      }
      continue;
    }
    // The capsule from this body's origin to the next one's (the last one's to the end point).
    const Vector3 a = d.X_world[chain_[k]].p;
    const Vector3 b = k + 1 < chain_.size() ? d.X_world[chain_[k + 1]].p : end;
    const int n = std::max(1, static_cast<int>(std::ceil((b - a).norm() / radius_)));
    for (int i = 0; i <= n; ++i) {
      const Vector3 p = a + (b - a) * (static_cast<double>(i) / n);
      if (exempt && exempt(p)) continue;
      for (const ConvexShape& o : obstacles) {
        double dist;
        if (o.core == ConvexShape::Core::kBox) {  // the common case, in closed form
          const Vector3 local = o.pose.R.transpose() * (p - o.pose.p);
          dist = (local.cwiseAbs() - o.half).cwiseMax(0.0).norm() - o.radius;
        } else {
          dist = shapeDistance(ConvexShape::sphere(0, {Matrix3::Identity(), p}), o).distance;
        }
        clearance = std::min(clearance, dist - radius_);
      }
    }
  }
  return clearance;
}

}  // namespace grapple::core
