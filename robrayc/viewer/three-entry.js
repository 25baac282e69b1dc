// The three.js classes the robrayc viewer page uses (scripts/vendor_three.sh bundles them).
export {
  AmbientLight, BufferAttribute, BufferGeometry, Color, DirectionalLight, DoubleSide, Group,
  HemisphereLight, Matrix4, Mesh, MeshLambertMaterial, PerspectiveCamera, Raycaster, Scene,
  Vector2, Vector3, WebGLRenderer,
} from "three";
export { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
