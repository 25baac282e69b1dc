// robrayc scene viewer: reads the scene JSON of the page, draws it with three.js (THREE, from
// three.min.js inlined before this script), orbit controls, one slider per configuration
// variable, frame names on hover, visual/collision toggle. Forward kinematics is robrayc's
// (kinematics.GroupFK for one configuration), operation for operation.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("robrayc-scene").textContent);
  const frames = data.frames;
  const q = data.variables.map((v) => v.value);

  function decode(text, Type) {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    return new Type(bytes.buffer);
  }

  // --- forward kinematics (plain doubles, row-major 4x4 arrays as numpy) ---
  function matmul(a, b) {
    const out = new Array(16);
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        let s = 0;
        for (let k = 0; k < 4; k++) s += a[r * 4 + k] * b[k * 4 + c];
        out[r * 4 + c] = s;
      }
    }
    return out;
  }

  function quatRotation(axis, angle) {  // pose_matrix of amino's axis-angle quaternion
    const s = Math.sin(angle / 2);
    return quatMatrix(s * axis[0], s * axis[1], s * axis[2], Math.cos(angle / 2));
  }

  // a ball (columns: rotation vector) or floating joint (translation, rotation vector):
  // kinematics.multi_dof_locals, the rotation by Rodrigues (sin(a/2)/a by its series near 0)
  function multiDof(columns, config) {
    const n = columns.length;
    const rx = config[columns[n - 3]], ry = config[columns[n - 2]], rz = config[columns[n - 1]];
    const a2 = rx * rx + ry * ry + rz * rz, a = Math.sqrt(a2);
    const k = a < 1e-4 ? 0.5 - a2 / 48 + a2 * a2 / 3840 : Math.sin(a / 2) / a;
    const m = quatMatrix(k * rx, k * ry, k * rz, Math.cos(a / 2));
    if (n === 6) {
      m[3] = config[columns[0]];
      m[7] = config[columns[1]];
      m[11] = config[columns[2]];
    }
    return m;
  }

  function quatMatrix(x, y, z, w) {
    return [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0,
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0,
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0,
            0, 0, 0, 1];
  }

  // kinematics.GroupFK: the pose of every moving rigid group, then each frame's constant
  // pose in its group
  function fk(config) {
    const G = [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]];
    for (const g of data.groups) {
      const base = g.parent === 0 ? g.base : matmul(G[g.parent], g.base);
      const value = config[g.variable] + g.offset;
      if (g.columns.length > 1) {
        G.push(matmul(base, multiDof(g.columns, config)));
      } else if (g.kind === "revolute") {
        G.push(matmul(base, quatRotation(g.axis, value)));
      } else {
        const m = base.slice();
        for (let r = 0; r < 3; r++) {
          m[r * 4 + 3] += (base[r * 4] * g.axis[0] + base[r * 4 + 1] * g.axis[1]
                           + base[r * 4 + 2] * g.axis[2]) * value;
        }
        G.push(m);
      }
    }
    return frames.map((f) => matmul(G[f.group], f.rel));
  }

  // --- three.js scene ---
  const container = document.getElementById("viewer");
  // Multisampling costs most of a frame in software WebGL (no GPU: SwiftShader, llvmpipe)
  // even for one box: only small scenes on a GPU get it.
  const triangles = data.geometries.reduce(
    (n, g) => n + (g.visual ? data.meshes[g.mesh].triangles : 0), 0);
  function softwareGL() {
    const gl = document.createElement("canvas").getContext("webgl2");
    if (!gl) return false;
    const info = gl.getExtension("WEBGL_debug_renderer_info");
    const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "";
    const lose = gl.getExtension("WEBGL_lose_context");
    if (lose) lose.loseContext();
    return /swiftshader|llvmpipe|softpipe|software/i.test(name);
  }
  const renderer = new THREE.WebGLRenderer({
    antialias: triangles <= data.antialiasTriangles && !softwareGL() });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));  // no more is seen
  container.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xffffff);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x555555, 0.9));
  const sun = new THREE.DirectionalLight(0xffffff, 1.3);
  sun.position.set(10, -15, 20);
  scene.add(sun);
  const cam = data.camera;
  const camera = new THREE.PerspectiveCamera(45, 1, 0.001, 1000);
  camera.up.set(cam.up[0], cam.up[1], cam.up[2]);
  camera.position.set(cam.eye[0], cam.eye[1], cam.eye[2]);
  const headLight = new THREE.DirectionalLight(0xffffff, 0.4);
  camera.add(headLight);
  scene.add(camera);
  const controls = new THREE.OrbitControls(camera, renderer.domElement);
  controls.target.set(cam.look[0], cam.look[1], cam.look[2]);
  controls.update();  // before its "change" listener: the first frame is not a move
  const span = Math.hypot(cam.eye[0] - cam.look[0], cam.eye[1] - cam.look[1],
                          cam.eye[2] - cam.look[2]);
  camera.near = span / 1000;
  camera.far = span * 100;

  function geometry(m) {
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(decode(m.positions, Float32Array), 3));
    g.setIndex(new THREE.BufferAttribute(decode(m.indices, Uint32Array), 1));
    if (m.normals) {
      g.setAttribute("normal", new THREE.BufferAttribute(decode(m.normals, Float32Array), 3));
    } else if (m.smooth) {
      g.computeVertexNormals();
    }
    g.computeBoundingSphere();
    return g;
  }
  const geometries = data.meshes.map(geometry);
  // coarse meshes (robrayc's vertex clustering), drawn while the view moves
  const coarse = data.meshes.map((m) => (m.coarse ? geometry(m.coarse) : null));
  const groups = frames.map((f) => {
    const group = new THREE.Group();
    group.name = f.name;
    group.matrixAutoUpdate = false;
    scene.add(group);
    return group;
  });
  const drawn = [];
  const materials = new Map();
  function material(color, g) {  // one per colour, alpha and shading
    const key = color.join(",") + "/" + g.alpha + "/" + g.flat;
    if (!materials.has(key)) {
      materials.set(key, new THREE.MeshLambertMaterial({  // cheaper to shade than PBR
        color: new THREE.Color(color[0], color[1], color[2]),
        transparent: g.alpha < 1, opacity: g.alpha, side: THREE.DoubleSide,
        flatShading: g.flat }));
    }
    return materials.get(key);
  }
  for (const g of data.geometries) {
    const own = material(g.color, g);
    const mesh = new THREE.Mesh(geometries[g.mesh], own);
    mesh.matrixAutoUpdate = false;
    mesh.userData = { frame: frames[g.frame].name, visual: g.visual, collision: g.collision,
                      own, red: g.highlight ? material(data.highlightColor, g) : own,
                      fine: geometries[g.mesh], coarse: coarse[g.mesh] };
    groups[g.frame].add(mesh);
    drawn.push(mesh);
  }

  // The collision overlay is the exact checker's answer at the configuration robrayc wrote:
  // shown (red) only while the sliders are there; once they move, the legend says so.
  const written = q.slice();
  const legend = document.getElementById("legend");
  function overlay() {
    const here = q.every((x, i) => x === written[i]);
    for (const m of drawn) m.material = here ? m.userData.red : m.userData.own;
    legend.classList.toggle("moved", !here);
    document.getElementById("legend-note").textContent = here
      ? "colliding (drawn red):"
      : "colliding at the written configuration, not checked here (reset to see them):";
  }

  function pose() {
    overlay();
    const world = fk(q);
    for (let i = 0; i < frames.length; i++) {
      const m = world[i];
      groups[i].matrix.set(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7],
                           m[8], m[9], m[10], m[11], m[12], m[13], m[14], m[15]);
      groups[i].matrixWorldNeedsUpdate = true;
    }
    return world;
  }

  let showCollision = false;
  function showGeometry() {
    for (const m of drawn) m.visible = showCollision ? m.userData.collision : m.userData.visual;
  }

  // --- rendering on demand: a frame only when the view or a slider changes ---
  // While the view moves, a big scene is drawn coarse (coarse meshes, half resolution); a
  // quarter second after the last change it is drawn in full once.
  const pixelRatio = renderer.getPixelRatio();
  const hasCoarse = coarse.some((c) => c);
  let pending = false, fine = true, restTimer = 0;
  const stats = { frames: 0 };
  function setDetail(full) {
    if (full === fine) return;
    fine = full;
    for (const m of drawn) {
      if (m.userData.coarse) m.geometry = full ? m.userData.fine : m.userData.coarse;
    }
    renderer.setPixelRatio(full ? pixelRatio : pixelRatio / 2);
  }
  function draw() {
    pending = false;
    renderer.render(scene, camera);
    stats.frames++;
  }
  function request(moving) {
    if (moving === true && hasCoarse) {
      setDetail(false);
      clearTimeout(restTimer);
      restTimer = setTimeout(() => { setDetail(true); request(); }, 250);
    }
    if (!pending) {
      pending = true;
      requestAnimationFrame(draw);
    }
  }
  function resize() {
    const w = container.clientWidth, h = container.clientHeight;
    renderer.setSize(w, h);
    camera.aspect = w / h;
    // the page shows at least robrayc's picture (horizontal field of view cam.fov at
    // cam.width x cam.height), whatever the window's shape
    const tanH = Math.tan((cam.fov * Math.PI) / 360);
    const tanV = Math.max(tanH * h / w, tanH * cam.height / cam.width);
    camera.fov = (2 * Math.atan(tanV) * 180) / Math.PI;
    camera.updateProjectionMatrix();
    request();
  }
  controls.addEventListener("change", () => request(true));
  window.addEventListener("resize", resize);

  // --- sliders ---
  const sliders = document.getElementById("sliders");
  const inputs = data.variables.map((v, i) => {
    const row = document.createElement("label");
    row.className = "slider";
    const name = document.createElement("span");
    name.textContent = v.name;
    const input = document.createElement("input");
    Object.assign(input, { type: "range", min: v.lo, max: v.hi, step: "any", value: v.value });
    input.dataset.variable = v.name;
    const value = document.createElement("output");
    value.textContent = v.value.toFixed(3);
    input.addEventListener("input", () => {
      q[i] = Number(input.value);
      value.textContent = q[i].toFixed(3);
      pose();
      request(true);
    });
    row.append(name, input, value);
    sliders.appendChild(row);
    return { input, value };
  });
  document.getElementById("reset").addEventListener("click", () => {
    written.forEach((x, i) => {
      q[i] = x;
      inputs[i].input.value = x;
      inputs[i].value.textContent = x.toFixed(3);
    });
    pose();
    request();
  });
  document.getElementById("collision").addEventListener("change", (e) => {
    showCollision = e.target.checked;
    showGeometry();
    request();
  });

  // --- hover: the frame under the pointer ---
  const tooltip = document.getElementById("tooltip");
  const raycaster = new THREE.Raycaster();
  const pointer = new THREE.Vector2();
  renderer.domElement.addEventListener("pointermove", (e) => {
    const rect = renderer.domElement.getBoundingClientRect();
    pointer.set(((e.clientX - rect.left) / rect.width) * 2 - 1,
                -((e.clientY - rect.top) / rect.height) * 2 + 1);
    raycaster.setFromCamera(pointer, camera);
    const hit = raycaster.intersectObjects(drawn.filter((m) => m.visible), false)[0];
    if (hit) {
      tooltip.textContent = hit.object.userData.frame;
      tooltip.style.left = e.clientX + 12 + "px";
      tooltip.style.top = e.clientY + 12 + "px";
      tooltip.hidden = false;
    } else {
      tooltip.hidden = true;
    }
  });
  renderer.domElement.addEventListener("pointerleave", () => { tooltip.hidden = true; });

  showGeometry();
  pose();
  resize();
  window.robraycViewer = {
    fk, stats, renderer, camera, controls, q, frames: frames.map((f) => f.name),
    variables: data.variables,
    setConfiguration(values) {
      for (const [name, value] of Object.entries(values)) {
        const i = data.variables.findIndex((v) => v.name === name);
        q[i] = value;
      }
      pose();
      request();
    },
    render: draw,
    setDetail,  // true: full meshes and resolution (at rest); false: as while moving
  };
})();
