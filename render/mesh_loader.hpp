// Meshes from files (STL, DAE, OBJ, glTF, ... whatever Assimp reads) as OSG nodes: one Geometry per
// mesh, placed by the file's node hierarchy (COLLADA units included; its up axis is ignored, as
// ROS tools do), coloured by its material's diffuse colour or by `color` when given.
#pragma once

#include <string>

#include <osg/Node>
#include <osg/Vec4>
#include <osg/ref_ptr>

namespace grapple::render {

// nullptr if the file cannot be read; *error then says why (the file named).
osg::ref_ptr<osg::Node> loadMesh(const std::string& path, std::string* error = nullptr,
                                 const osg::Vec4* color = nullptr);

}  // namespace grapple::render
