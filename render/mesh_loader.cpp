#include "render/mesh_loader.hpp"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/Material>

namespace grapple::render {

osg::ref_ptr<osg::Node> loadMesh(const std::string& path, std::string* error) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_GenNormals | aiProcess_JoinIdenticalVertices);
  if (!scene || !scene->mRootNode || scene->mNumMeshes == 0) {
    if (error) *error = path + ": cannot read the mesh (" + importer.GetErrorString() + ")";
    return nullptr;
  }
  // The files are flat (no node hierarchy transforms are used by our meshes): every mesh is
  // drawn in the file's frame.
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
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
    (*colors)[0].set(diffuse.r, diffuse.g, diffuse.b, 1.0f);
    g->setColorArray(colors, osg::Array::BIND_OVERALL);
    geode->addDrawable(g);
  }
  return geode;
}

}  // namespace grapple::render
