#include "render/mesh_loader.hpp"

#include <vector>

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/MatrixTransform>

namespace grapple::render {

namespace {

osg::ref_ptr<osg::Geometry> meshGeometry(const aiScene* scene, const aiMesh* mesh, const osg::Vec4* color) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array(mesh->mNumVertices);
  osg::ref_ptr<osg::Vec3Array> normals = new osg::Vec3Array(mesh->mNumVertices);
  for (unsigned k = 0; k < mesh->mNumVertices; ++k) {
    const aiVector3D& p = mesh->mVertices[k];
    (*vertices)[k].set(p.x, p.y, p.z);
    if (mesh->HasNormals()) (*normals)[k].set(mesh->mNormals[k].x, mesh->mNormals[k].y, mesh->mNormals[k].z);
  }
  g->setVertexArray(vertices);
  g->setNormalArray(normals, osg::Array::BIND_PER_VERTEX);
  osg::ref_ptr<osg::DrawElementsUInt> triangles = new osg::DrawElementsUInt(GL_TRIANGLES);
  for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
    const aiFace& face = mesh->mFaces[f];
    if (face.mNumIndices != 3) continue;  // points and lines left by the triangulation
    for (unsigned k = 0; k < 3; ++k) triangles->push_back(face.mIndices[k]);
  }
  g->addPrimitiveSet(triangles);
  aiColor4D diffuse(0.7f, 0.7f, 0.7f, 1.0f);
  if (mesh->mMaterialIndex < scene->mNumMaterials) {
    scene->mMaterials[mesh->mMaterialIndex]->Get(AI_MATKEY_COLOR_DIFFUSE, diffuse);
  }
  osg::ref_ptr<osg::Vec4Array> colors = new osg::Vec4Array(1);
  (*colors)[0] = color ? *color : osg::Vec4(diffuse.r, diffuse.g, diffuse.b, 1.0f);
  g->setColorArray(colors, osg::Array::BIND_OVERALL);
  return g;
}

// The node and its children, each placed by its transformation (identity ones not wrapped).
osg::ref_ptr<osg::Node> meshNode(const aiNode* node, const std::vector<osg::ref_ptr<osg::Geometry>>& meshes) {
  const aiMatrix4x4& A = node->mTransformation;
  osg::ref_ptr<osg::Group> group;
  if (A.IsIdentity()) {
    group = new osg::Group;
  } else {  // Assimp: column vectors, row-major; OSG: row vectors
    group = new osg::MatrixTransform(osg::Matrixd(A.a1, A.b1, A.c1, A.d1, A.a2, A.b2, A.c2, A.d2, A.a3, A.b3,
                                                  A.c3, A.d3, A.a4, A.b4, A.c4, A.d4));
  }
  if (node->mNumMeshes > 0) {
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    for (unsigned k = 0; k < node->mNumMeshes; ++k) geode->addDrawable(meshes[node->mMeshes[k]]);
    group->addChild(geode);
  }
  for (unsigned c = 0; c < node->mNumChildren; ++c) group->addChild(meshNode(node->mChildren[c], meshes));
  return group;
}

}  // namespace

osg::ref_ptr<osg::Node> loadMesh(const std::string& path, std::string* error, const osg::Vec4* color) {
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_GenNormals | aiProcess_JoinIdenticalVertices);
  if (!scene || !scene->mRootNode || scene->mNumMeshes == 0) {
    if (error) *error = path + ": cannot read the mesh (" + importer.GetErrorString() + ")";
    return nullptr;
  }
  std::vector<osg::ref_ptr<osg::Geometry>> meshes;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) meshes.push_back(meshGeometry(scene, scene->mMeshes[m], color));
  return meshNode(scene->mRootNode, meshes);
}

}  // namespace grapple::render
