// Times VAMP's collision kernels (KavrakiLab/vamp, fetched separately; never copied here) on
// given configurations among given boxes. Built by benchmarks/checker.py --vamp PATH:
//   g++ -std=c++17 -O3 -march=native <VAMP's fast-math flags> -I PATH/src/impl
//       -I /usr/include/eigen3 -DVAMP_ROBOT=Panda -DVAMP_HEADER='<vamp/robots/panda.hh>'
// stdin: box count, then per box "cx cy cz r00 r01 r02 r10 r11 r12 r20 r21 r22 hx hy hz"
// (rotation row-major: VAMP's axes are its columns); configuration count, then one
// configuration per line in VAMP's joint order.
// stdout: line 1: "valid" flags (1 collision-free) per configuration, as vamp.validate answers;
// line 2: us per configuration: all, collision-free ones, colliding ones (single configuration
// broadcast over a block, as vamp.validate does), and per configuration of blocks of 8
// distinct collision-free configurations (fkcc on a whole block, as motion validation uses it),
// "0", us per straight-line motion from configuration 2k to 2k + 1 (validate_motion at the
// robot's resolution); line 3: "valid" flags of those motions.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <vamp/collision/environment.hh>
#include <vamp/planning/validate.hh>
#include VAMP_HEADER

using Robot = vamp::robots::VAMP_ROBOT;
constexpr std::size_t rake = vamp::FloatVectorWidth;
using Env = vamp::collision::Environment<vamp::FloatVector<rake>>;

static double seconds()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

static bool validate(const Robot::Configuration &q, const Env &env)
{
    return vamp::planning::validate_motion<Robot, rake, 1>(q, q, env);
}

// best of 5 runs of fn(), in us per item
template <typename F>
static double best_us(F fn, std::size_t items)
{
    double best = 1e30;
    for (int run = 0; run < 5; ++run)
    {
        const double t = seconds();
        fn();
        best = std::min(best, seconds() - t);
    }
    return items ? 1e6 * best / static_cast<double>(items) : 0.0;
}

int main()
{
    vamp::collision::Environment<float> world;
    int n_boxes = 0;
    if (std::scanf("%d", &n_boxes) != 1) return 1;
    for (int b = 0; b < n_boxes; ++b)
    {
        float v[15];
        for (float &x : v)
            if (std::scanf("%f", &x) != 1) return 1;
        world.cuboids.emplace_back(
            v[0], v[1], v[2], v[3], v[6], v[9], v[4], v[7], v[10], v[5], v[8], v[11], v[12],
            v[13], v[14]);
    }
    world.sort();
    const Env env(world);

    long n = 0;
    if (std::scanf("%ld", &n) != 1) return 1;
    std::vector<Robot::Configuration> configs;
    std::vector<std::array<float, Robot::dimension>> raw(n);
    for (long k = 0; k < n; ++k)
    {
        for (float &x : raw[k])
            if (std::scanf("%f", &x) != 1) return 1;
        configs.emplace_back(raw[k]);
    }
    std::vector<char> valid(n);
    std::vector<long> free_k, hit_k;
    for (long k = 0; k < n; ++k)
    {
        valid[k] = validate(configs[k], env);
        (valid[k] ? free_k : hit_k).push_back(k);
        std::printf("%d", valid[k] ? 1 : 0);
    }
    std::printf("\n");

    long sink = 0;
    auto over = [&](const std::vector<long> &ks)
    { return [&, ks]() { for (long k : ks) sink += validate(configs[k], env); }; };
    std::vector<long> all_k(n);
    for (long k = 0; k < n; ++k) all_k[k] = k;
    const double all = best_us(over(all_k), all_k.size());
    const double clear = best_us(over(free_k), free_k.size());
    const double hit = best_us(over(hit_k), hit_k.size());

    // blocks of `rake` distinct collision-free configurations
    std::vector<Robot::ConfigurationBlock<rake>> blocks;
    for (std::size_t at = 0; at + rake <= free_k.size(); at += rake)
    {
        Robot::ConfigurationBlock<rake> block;
        for (std::size_t d = 0; d < Robot::dimension; ++d)
        {
            std::array<float, rake> lane;
            for (std::size_t l = 0; l < rake; ++l) lane[l] = raw[free_k[at + l]][d];
            block[d] = vamp::FloatVector<rake>(lane);
        }
        blocks.push_back(block);
    }
    const double block = best_us(
        [&]() { for (const auto &b : blocks) sink += Robot::template fkcc<rake>(env, b); },
        blocks.size() * rake);

    // straight-line motions between configurations 0 -> 1, 2 -> 3, ... at the robot's
    // resolution (validate_motion: `rake` samples a block, the first collision exits)
    auto motion = [&](long k)
    {
        return vamp::planning::validate_motion<Robot, rake, Robot::resolution>(
            configs[k], configs[k + 1], env);
    };
    std::string motion_valid;
    for (long k = 0; k + 1 < n; k += 2) motion_valid += motion(k) ? '1' : '0';
    const double motions = best_us(
        [&]() { for (long k = 0; k + 1 < n; k += 2) sink += motion(k); }, n / 2);
    std::printf("%.6g %.6g %.6g %.6g %ld %.6g\n%s\n", all, clear, hit, block,
                sink < 0 ? 0L : 0L, motions, motion_valid.c_str());
    return 0;
}
