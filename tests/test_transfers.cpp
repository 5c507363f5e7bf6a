// Host <-> device transfers without a GPU (issue 26 item 3, lesson `transfers`): the link's
// theoretical rate from its generation and width, read from a sysfs tree; the requests' limits;
// the lesson's `transfer` lines; and the CPU model's tables, labelled as a model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "reducelab/lesson.hpp"
#include "reducelab/pitfalls.hpp"
#include "reducelab/transfers.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

// A sysfs tree with one PCI device, as Linux writes it.
std::string fakeSysfs(const std::string& name, const std::string& id, const std::string& maxSpeed, int maxWidth,
                      const std::string& speedNow, int widthNow) {
  const std::string root = rl::test::tempPath(name);
  const std::filesystem::path dir = std::filesystem::path(root) / "bus/pci/devices" / id;
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(dir);
  auto write = [&](const char* f, const std::string& v) { std::ofstream(dir / f) << v << "\n"; };
  write("max_link_speed", maxSpeed);
  write("max_link_width", std::to_string(maxWidth));
  write("current_link_speed", speedNow);
  write("current_link_width", std::to_string(widthNow));
  return root;
}

PitfallRequest transferRequest(Pitfall kind, std::vector<uint64_t> sizes) {
  PitfallRequest r;
  r.kind = kind;
  r.sizes = std::move(sizes);
  return r;
}

}  // namespace

// Per lane: 2.5 and 5 GT/s with 8b/10b, then 8, 16, 32 GT/s with 128b/130b; sixteen lanes.
TEST(Transfers, PcieRateFollowsGenerationEncodingAndWidth) {
  EXPECT_DOUBLE_EQ(pcieGBs(1, 16), 2.5 * 16 * 8 / 10 / 8);   // 4.0: seed 004's "PCIe x16 (4 GB/s)"
  EXPECT_DOUBLE_EQ(pcieGBs(2, 16), 8.0);
  EXPECT_NEAR(pcieGBs(3, 16), 8.0 * 16 / 8 * 128 / 130, 1e-12);
  EXPECT_NEAR(pcieGBs(5, 16), 32.0 * 2 * 128 / 130, 1e-12);   // 63.0
  EXPECT_NEAR(pcieGBs(4, 8), pcieGBs(3, 16), 1e-12);
  EXPECT_EQ(pcieGBs(0, 16), 0);
  EXPECT_EQ(pcieGBs(7, 16), 0);
  EXPECT_EQ(pcieGBs(5, 0), 0);
  EXPECT_EQ(pcieGenerationOfSpeed(2.5), 1);
  EXPECT_EQ(pcieGenerationOfSpeed(32.0), 5);
  EXPECT_EQ(pcieGenerationOfSpeed(20.0), 0);
}

TEST(Transfers, LinkIsReadFromSysfsWhateverTheBusIdsCase) {
  const std::string root = fakeSysfs("sysfs-gen5", "0000:1b:00.0", "32.0 GT/s PCIe", 16, "2.5 GT/s PCIe", 16);
  for (const std::string id : {"0000:1B:00.0", "00000000:1B:00.0", "0000:1b:00.0"}) {
    const LinkInfo l = readPcieLinkFromSysfs(id, root);
    ASSERT_TRUE(l.known) << id;
    EXPECT_EQ(l.name, "PCIe Gen5 x16");
    EXPECT_NEAR(l.gbs, 63.0, 0.05);
    EXPECT_NE(l.now.find("Gen1 x16"), std::string::npos) << l.now;  // an idle link slows down
    EXPECT_NE(l.source.find("0000:1b:00.0"), std::string::npos);
  }
  // The same link at full speed says nothing about "now".
  const std::string same = fakeSysfs("sysfs-same", "0000:01:00.0", "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
  EXPECT_TRUE(readPcieLinkFromSysfs("0000:01:00.0", same).now.empty());
  EXPECT_EQ(readPcieLinkFromSysfs("0000:01:00.0", same).name, "PCIe Gen4 x16");
  // Unknown device, unreadable speed, a path outside the devices folder: unknown, never a guess.
  EXPECT_FALSE(readPcieLinkFromSysfs("0000:02:00.0", root).known);
  EXPECT_FALSE(readPcieLinkFromSysfs("", root).known);
  EXPECT_FALSE(readPcieLinkFromSysfs("../../../etc", root).known);
  // The port above limits the link: sysfs's devices entry links into the port's folder.
  {
    namespace fs = std::filesystem;
    const fs::path top = rl::test::tempPath("sysfs-slot");
    fs::remove_all(top);
    const fs::path port = top / "devices/pci0000:00/0000:00:01.0", gpu = port / "0000:01:00.0";
    fs::create_directories(gpu);
    fs::create_directories(top / "bus/pci/devices");
    fs::create_directory_symlink(gpu, top / "bus/pci/devices/0000:01:00.0");
    std::ofstream(port / "max_link_speed") << "16.0 GT/s PCIe\n";
    std::ofstream(port / "max_link_width") << "16\n";
    std::ofstream(gpu / "max_link_speed") << "32.0 GT/s PCIe\n";
    std::ofstream(gpu / "max_link_width") << "16\n";
    const LinkInfo l = readPcieLinkFromSysfs("0000:01:00.0", top.string());
    ASSERT_TRUE(l.known);
    EXPECT_EQ(l.name, "PCIe Gen4 x16");  // a Gen5 GPU in a Gen4 slot
    fs::remove(port / "max_link_speed");  // a port without link files (a VM's bridge): the device's own
    EXPECT_EQ(readPcieLinkFromSysfs("0000:01:00.0", top.string()).name, "PCIe Gen5 x16");
  }
  const std::string odd = fakeSysfs("sysfs-odd", "0000:03:00.0", "Unknown", 16, "Unknown", 16);
  EXPECT_FALSE(readPcieLinkFromSysfs("0000:03:00.0", odd).known);
}

TEST(Transfers, RequestsOutOfRangeAreRefusedInOneSentence) {
  EXPECT_EQ(validatePitfall(transferRequest(Pitfall::HostCopies, {})), "");
  EXPECT_EQ(validatePitfall(transferRequest(Pitfall::HostCopies, {1024, uint64_t(4) << 30})), "");
  EXPECT_NE(validatePitfall(transferRequest(Pitfall::HostCopies, {1023})).find("out of range"), std::string::npos);
  EXPECT_NE(validatePitfall(transferRequest(Pitfall::HostCopies, {(uint64_t(4) << 30) + 1})).find("out of range"),
            std::string::npos);
  EXPECT_NE(validatePitfall(transferRequest(Pitfall::HostCopies, std::vector<uint64_t>(9, 4096))).find("1 to 8"),
            std::string::npos);
  EXPECT_NE(validatePitfall(transferRequest(Pitfall::StreamOverlap, {4096, 8192})).find("one size"), std::string::npos);
  EXPECT_NE(validatePitfall(transferRequest(Pitfall::ReduceWithCopy, {4098})).find("multiple of 4"), std::string::npos);
  PitfallRequest r = transferRequest(Pitfall::StreamOverlap, {});
  r.streams = 9;
  EXPECT_NE(validatePitfall(r).find("streams=9"), std::string::npos);
  r.streams = 0;
  EXPECT_NE(validatePitfall(r).find("streams=0"), std::string::npos);
  // A refused request comes back refused from the CPU model too, with nothing measured.
  const PitfallResult out = runPitfallOnCpu(transferRequest(Pitfall::HostCopies, {12}));
  EXPECT_FALSE(out.ok);
  EXPECT_TRUE(out.transfers.rows.empty());
}

TEST(Transfers, LessonLinesNameTheirDemonstrationAndSettings) {
  auto parse = [](const std::string& body, std::string* err) {
    return parseLesson("title: t\nstep: s\n" + body + "\n", "t", err);
  };
  std::string err;
  std::optional<Lesson> l = parse("transfer copies sizes=4K,1M directions=h2d,BOTH", &err);
  ASSERT_TRUE(l) << err;
  const PitfallRequest& r = l->steps[0].pitfalls.at(0);
  EXPECT_EQ(r.kind, Pitfall::HostCopies);
  EXPECT_EQ(r.sizes, (std::vector<uint64_t>{4096, 1 << 20}));
  EXPECT_EQ(r.directions, (std::vector<TransferDirection>{TransferDirection::HostToDevice, TransferDirection::Both}));
  l = parse("transfer streams streams=3", &err);
  ASSERT_TRUE(l) << err;
  EXPECT_EQ(l->steps[0].pitfalls.at(0).streams, 3);
  // Each directive takes its own names and settings only.
  EXPECT_FALSE(parse("transfer clock", &err));
  EXPECT_NE(err.find("copies, streams, reduce-copy"), std::string::npos) << err;
  EXPECT_FALSE(parse("pitfall copies", &err));
  EXPECT_NE(err.find("clock"), std::string::npos) << err;
  EXPECT_FALSE(parse("transfer copies directions=sideways", &err));
  EXPECT_NE(err.find("h2d, d2h, both"), std::string::npos) << err;
  EXPECT_FALSE(parse("transfer copies block=256", &err));
  EXPECT_NE(err.find("unknown transfer copies setting 'block'"), std::string::npos) << err;
  // A setting of another demonstration is refused, not ignored.
  EXPECT_FALSE(parse("transfer reduce-copy directions=d2h", &err));
  EXPECT_NE(err.find("(sizes)"), std::string::npos) << err;
  EXPECT_FALSE(parse("transfer copies streams=4", &err));
  EXPECT_NE(err.find("(sizes, directions)"), std::string::npos) << err;
  EXPECT_FALSE(parse("transfer streams directions=h2d", &err));
  EXPECT_FALSE(parse("transfer copies sizes=4K,4K", &err));
  EXPECT_NE(err.find("twice"), std::string::npos) << err;
  EXPECT_FALSE(parse("transfer copies directions=h2d,H2D", &err));
  EXPECT_NE(err.find("twice"), std::string::npos) << err;
  EXPECT_FALSE(parse("transfer streams streams=12", &err));
  EXPECT_FALSE(parse("transfer reduce-copy sizes=1K,6G", &err));
  EXPECT_NE(err.find("out of range"), std::string::npos) << err;
}

// Without a GPU: the host copy is measured, the GPU's columns say nothing was, the streams follow
// the pipeline's arithmetic, and every table is labelled a model.
TEST(Transfers, TheCpuModelMeasuresOnlyTheHostAndSaysSo) {
  PitfallRequest r = transferRequest(Pitfall::HostCopies, {4096, 1 << 20});
  PitfallResult out = runPitfallOnCpu(r);
  ASSERT_TRUE(out.ok) << out.error;
  ASSERT_EQ(out.transfers.rows.size(), 6u);  // 2 sizes x 3 directions
  for (const TransferRow& row : out.transfers.rows) {
    EXPECT_GT(row.hostCopyMs, 0);
    EXPECT_EQ(row.pageableMs, 0);
    EXPECT_EQ(row.pinnedMs, 0);
    EXPECT_EQ(row.mappedMs, 0);
  }
  Table t = pitfallTable(out);
  EXPECT_NE(t.caption.find("CPU model"), std::string::npos);
  EXPECT_EQ(t.rows.size(), 6u);
  const size_t linkCol = size_t(std::find(t.headers.begin(), t.headers.end(), "link's time us") - t.headers.begin());
  ASSERT_LT(linkCol, t.headers.size());
  // 1 MiB over PCIe Gen5 x16: 2^20 / 63.0e9 s, in microseconds.
  EXPECT_EQ(t.rows[3][linkCol], "16.6");   // 2^20 B / 63.015 GB/s
  EXPECT_EQ(t.rows[0][linkCol], "0.065");  // 4096 B / 63.015 GB/s
  EXPECT_EQ(std::find(t.headers.begin(), t.headers.end(), "pinned GB/s"), t.headers.end());  // nothing measured
  EXPECT_NE(pitfallFindings(out).front().find("No GPU here"), std::string::npos);

  r = transferRequest(Pitfall::StreamOverlap, {uint64_t(64) << 20});
  out = runPitfallOnCpu(r);
  ASSERT_TRUE(out.ok);
  ASSERT_EQ(out.transfers.streams.size(), 4u);
  const double stage = double(uint64_t(64) << 20) / (pcieGBs(5, 16) * 1e9) * 1e3;
  for (const StreamRow& s : out.transfers.streams) EXPECT_NEAR(s.ms, stage * (s.streams + 2) / s.streams, 1e-9);
  t = pitfallTable(out);
  EXPECT_NE(t.caption.find("CPU model"), std::string::npos);

  out = runPitfallOnCpu(transferRequest(Pitfall::ReduceWithCopy, {uint64_t(64) << 20}));
  ASSERT_TRUE(out.ok);
  ASSERT_EQ(out.transfers.reduce.size(), 2u);
  EXPECT_GT(out.transfers.reduce[1].ms, out.transfers.reduce[0].ms);
  EXPECT_NE(pitfallTable(out).caption.find("CPU model"), std::string::npos);
}

// Every demonstration's table and findings are complete: no empty cell, a sentence at least,
// code for both columns, its own headings.
TEST(Transfers, EveryDemonstrationHasATableFindingsAndCode) {
  for (Pitfall p : transferDemos()) {
    EXPECT_TRUE(isTransferDemo(p));
    EXPECT_EQ(parsePitfall(name(p)), p);
    const PitfallResult r = runPitfallOnCpu(transferRequest(p, {uint64_t(1) << 16}));
    ASSERT_TRUE(r.ok) << name(p) << ": " << r.error;
    const Table t = pitfallTable(r);
    EXPECT_FALSE(t.caption.empty()) << name(p);
    ASSERT_FALSE(t.rows.empty()) << name(p);
    for (const auto& row : t.rows) {
      EXPECT_EQ(row.size(), t.headers.size()) << name(p);
      for (const std::string& cell : row) EXPECT_FALSE(cell.empty()) << name(p);
    }
    EXPECT_FALSE(pitfallFindings(r).empty()) << name(p);
    EXPECT_FALSE(pitfallSeedCode(p).empty());
    EXPECT_FALSE(pitfallFixCode(p).empty());
    EXPECT_NE(pitfallCodeHeadings(p).first, "As seed 002 wrote it");
    EXPECT_EQ(pitfallTitle(p).rfind("Transfers: ", 0), 0u);
  }
  for (Pitfall p : allPitfalls()) EXPECT_FALSE(isTransferDemo(p)) << name(p);
}

// What the findings say follows from what was measured: a step of D2H and both only still speaks
// of them; "each direction on its own lanes" only where both at once beat one way; no rate
// against a link that could not be read.
TEST(Transfers, FindingsSayOnlyWhatTheRowsShow) {
  PitfallResult r;
  r.kind = Pitfall::HostCopies;
  r.ok = r.onGpu = true;
  r.source = "GPU: test";
  r.transfers.link = assumedLink();
  r.transfers.copyEngines = 2;
  auto row = [](TransferDirection d, double pinnedMs) {
    TransferRow t;
    t.bytes = uint64_t(64) << 20;
    t.direction = d;
    t.pageableMs = 10, t.pinnedMs = pinnedMs, t.mappedMs = 2, t.hostCopyMs = 5;
    t.checked = true;
    return t;
  };
  r.transfers.rows = {row(TransferDirection::DeviceToHost, 1.25), row(TransferDirection::Both, 1.4)};
  auto joined = [&] {
    std::string all;
    for (const std::string& f : pitfallFindings(r)) all += f + "\n";
    return all;
  };
  std::string f = joined();
  EXPECT_NE(f.find("comes back from the GPU"), std::string::npos) << f;
  EXPECT_NE(f.find("its own lanes"), std::string::npos) << f;  // 95.9 GB/s in all against 53.7 one way
  EXPECT_NE(f.find("2 copy engines"), std::string::npos) << f;
  EXPECT_EQ(f.find("fixed cost per call"), std::string::npos) << f;  // no small copy measured
  r.transfers.rows[1].pinnedMs = 2.5;  // both at once no faster than one way
  f = joined();
  EXPECT_EQ(f.find("its own lanes"), std::string::npos) << f;
  EXPECT_NE(f.find("did not overlap"), std::string::npos) << f;
  r.transfers.link = LinkInfo{};
  f = joined();
  EXPECT_NE(f.find("could not be read"), std::string::npos) << f;
  EXPECT_EQ(f.find("0.0 GB/s"), std::string::npos) << f;
  EXPECT_EQ(pitfallTable(r).caption.find("()"), std::string::npos) << pitfallTable(r).caption;
  r.transfers.rows[0].checked = false;
  EXPECT_NE(joined().find("DIFFERS"), std::string::npos);
}
