// Meshes from files (OBJ, glTF, ... whatever Assimp reads) as OSG nodes: one Geometry per mesh,
// coloured by its material's diffuse colour, with flat normals.
#pragma once

#include <string>

#include <osg/Node>
#include <osg/ref_ptr>

namespace grapple::render {

// nullptr if the file cannot be read; *error then says why (the file named).
osg::ref_ptr<osg::Node> loadMesh(const std::string& path, std::string* error = nullptr);

}  // namespace grapple::render
