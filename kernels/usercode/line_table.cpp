// The DWARF line table of a cubin (see line_table.hpp). Every read is bounds-checked: a cubin
// comes from NVRTC or from the build cache, and a damaged one must give an error, not a crash.
#include "reducelab/usercode/line_table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

namespace rl::usercode {

namespace {

struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
  bool ok = true;
  template <typename T>
  T get(size_t at) {
    T v{};
    if (at > size || sizeof(T) > size - at) {
      ok = false;
      return v;
    }
    std::memcpy(&v, data + at, sizeof(T));
    return v;
  }
};

struct Section {
  std::string name;
  uint32_t type = 0, link = 0, info = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};

// A cursor over one section's bytes.
struct Reader {
  Bytes b;
  size_t pos = 0, end = 0;
  bool more() const { return b.ok && pos < end; }
  uint8_t u8() { return pos < end ? b.get<uint8_t>(pos++) : (b.ok = false, uint8_t(0)); }
  template <typename T>
  T fixed() {
    if (pos + sizeof(T) > end) {
      b.ok = false;
      return T{};
    }
    const T v = b.get<T>(pos);
    pos += sizeof(T);
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t c = u8();
      v |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80) || !b.ok) return v;
    }
    b.ok = false;
    return v;
  }
  int64_t sleb() {
    int64_t v = 0;
    int shift = 0;
    uint8_t c = 0;
    do {
      c = u8();
      if (shift < 64) v = int64_t(uint64_t(v) | (uint64_t(c & 0x7f) << shift));
      shift += 7;
    } while ((c & 0x80) && b.ok && shift < 70);
    if (shift < 64 && (c & 0x40)) v = int64_t(uint64_t(v) | (~uint64_t(0) << shift));
    return v;
  }
  std::string str() {
    std::string s;
    while (more()) {
      const char c = char(u8());
      if (!c) return s;
      s += c;
    }
    b.ok = false;
    return s;
  }
};

}  // namespace

CubinLines CubinLines::read(const std::vector<uint8_t>& cubin, std::string* error) {
  CubinLines out;
  Bytes b{cubin.data(), cubin.size()};
  auto fail = [&](const std::string& why) {
    *error = why;
    return CubinLines{};
  };
  error->clear();
  if (cubin.size() < 64 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0 || cubin[4] != 2 || cubin[5] != 1)
    return fail("not a 64-bit little-endian ELF");
  const uint64_t shoff = b.get<uint64_t>(0x28);
  const uint16_t shentsize = b.get<uint16_t>(0x3a), shnum = b.get<uint16_t>(0x3c), shstrndx = b.get<uint16_t>(0x3e);
  if (shentsize < 64 || shstrndx >= shnum) return fail("bad section header table");
  std::vector<Section> sections(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const size_t h = size_t(shoff) + size_t(i) * shentsize;
    Section& s = sections[i];
    s.type = b.get<uint32_t>(h + 4);
    s.offset = b.get<uint64_t>(h + 24);
    s.size = b.get<uint64_t>(h + 32);
    s.link = b.get<uint32_t>(h + 40);
    s.info = b.get<uint32_t>(h + 44);
    s.entsize = b.get<uint64_t>(h + 56);
    if (!b.ok) return fail("a section header lies outside the file");
    if (s.type == 8 /* SHT_NOBITS: .nv.shared.*, no bytes in the file */) {
      s.offset = s.size = 0;
      continue;
    }
    if (s.offset > cubin.size() || s.size > cubin.size() - s.offset) return fail("a section lies outside the file");
  }
  auto name = [&](const Section& strtab, uint32_t at) {
    std::string n;
    for (uint64_t p = strtab.offset + at; p < strtab.offset + strtab.size && cubin[size_t(p)]; ++p) n += char(cubin[size_t(p)]);
    return n;
  };
  for (uint16_t i = 0; i < shnum; ++i)
    sections[i].name = name(sections[shstrndx], b.get<uint32_t>(size_t(shoff) + size_t(i) * shentsize));
  const auto find = [&](const std::string& n) {
    for (size_t i = 0; i < sections.size(); ++i)
      if (sections[i].name == n) return int(i);
    return -1;
  };
  const int line = find(".debug_line");
  if (line < 0) return fail("no .debug_line (compiled without line information)");
  // Which function each DW_LNE_set_address belongs to: the relocation at its operand.
  std::map<uint64_t, std::pair<std::string, int64_t>> functionAt;  // operand offset -> (function, addend)
  for (const Section& r : sections) {
    if (r.type != 4 /* SHT_RELA */ || r.info != uint32_t(line) || r.link >= sections.size()) continue;
    const Section& symtab = sections[r.link];
    if (symtab.link >= sections.size() || symtab.entsize < 24) continue;
    const Section& strtab = sections[symtab.link];
    for (uint64_t e = 0; e + 24 <= r.size; e += 24) {
      const uint64_t offset = b.get<uint64_t>(size_t(r.offset + e));
      const uint64_t info = b.get<uint64_t>(size_t(r.offset + e + 8));
      const int64_t addend = b.get<int64_t>(size_t(r.offset + e + 16));
      const uint64_t sym = info >> 32;
      if (sym >= symtab.size / symtab.entsize) continue;
      const size_t s = size_t(symtab.offset + sym * symtab.entsize);
      std::string fn = name(strtab, b.get<uint32_t>(s));
      const uint16_t shndx = b.get<uint16_t>(s + 6);
      const int64_t value = int64_t(b.get<uint64_t>(s + 8));
      if (fn.empty() && shndx < sections.size() && sections[shndx].name.rfind(".text.", 0) == 0)
        fn = sections[shndx].name.substr(6);  // a section symbol: the function is the section's
      if (!fn.empty()) functionAt[offset] = {fn, int64_t(uint64_t(value) + uint64_t(addend))};
    }
  }
  if (!b.ok) return fail("a relocation lies outside the file");

  const Section& sec = sections[size_t(line)];
  Reader rd{b, size_t(sec.offset), size_t(sec.offset + sec.size)};
  while (rd.more()) {
    const size_t unitStart = rd.pos;
    const uint32_t length = rd.fixed<uint32_t>();
    if (length == 0xffffffffu) return fail("64-bit DWARF is not read");
    if (!rd.b.ok || length > rd.end - rd.pos) return fail(".debug_line: a unit runs past the section");
    const size_t unitEnd = unitStart + 4 + length;
    const uint16_t version = rd.fixed<uint16_t>();
    if (version < 2 || version > 4) return fail(".debug_line: DWARF version " + std::to_string(version) + " is not read");
    const uint32_t headerLength = rd.fixed<uint32_t>();
    if (!rd.b.ok || headerLength > unitEnd - rd.pos) return fail(".debug_line: bad header");
    const size_t program = rd.pos + headerLength;
    const uint8_t minInst = rd.u8();
    if (version >= 4) rd.u8();  // maximum operations per instruction
    rd.u8();                    // default is_stmt
    const int8_t lineBase = int8_t(rd.u8());
    const uint8_t lineRange = rd.u8(), opcodeBase = rd.u8();
    if (lineRange == 0 || opcodeBase == 0) return fail(".debug_line: bad header");
    std::vector<uint8_t> argCount(opcodeBase, 0);
    for (int i = 1; i < opcodeBase; ++i) argCount[size_t(i)] = rd.u8();
    while (rd.more() && !rd.str().empty()) {}  // include directories
    std::vector<std::string> files{""};        // 1-based
    for (std::string f = rd.str(); rd.b.ok && !f.empty(); f = rd.str()) {
      files.push_back(f);
      rd.uleb(), rd.uleb(), rd.uleb();
    }
    if (!rd.b.ok || program > unitEnd) return fail(".debug_line: bad header");
    rd.pos = program;
    Reader p{rd.b, program, unitEnd};
    uint64_t address = 0;
    int64_t lineNo = 1;
    uint64_t file = 1;
    std::string function;
    int64_t base = 0;
    auto emit = [&] {
      if (function.empty()) return;
      const int shown = lineNo > 0 && lineNo < (int64_t(1) << 30) ? int(lineNo) : 0;  // garbage lines are no lines
      out.byFunction_[function].push_back({uint64_t(base) + address, file < files.size() ? files[file] : "", shown});
    };
    while (p.more()) {
      const uint8_t op = p.u8();
      if (op >= opcodeBase) {
        const int adj = op - opcodeBase;
        address += uint64_t(adj / lineRange) * minInst;
        lineNo = int64_t(uint64_t(lineNo) + uint64_t(int64_t(lineBase + adj % lineRange)));
        emit();
      } else if (op == 0) {
        const uint64_t len = p.uleb();
        if (!p.b.ok || len == 0 || len > p.end - p.pos) return fail(".debug_line: bad extended opcode");
        const size_t next = p.pos + size_t(len);
        const uint8_t sub = p.u8();
        if (sub == 1) {  // end of sequence
          address = 0, lineNo = 1, file = 1;
        } else if (sub == 2) {  // set address: relocated to a function
          const auto it = functionAt.find(uint64_t(p.pos - sec.offset));
          function = it == functionAt.end() ? std::string() : it->second.first;
          base = it == functionAt.end() ? 0 : it->second.second;
          address = len - 1 == 8 ? p.fixed<uint64_t>() : len - 1 == 4 ? p.fixed<uint32_t>() : 0;
        } else if (sub == 3) {  // define file
          files.push_back(p.str());
        }
        p.pos = next;
      } else if (op == 1) {
        emit();
      } else if (op == 2) {
        address += p.uleb() * minInst;
      } else if (op == 3) {
        lineNo = int64_t(uint64_t(lineNo) + uint64_t(p.sleb()));
      } else if (op == 4) {
        file = p.uleb();
      } else if (op == 8) {
        address += uint64_t((255 - opcodeBase) / lineRange) * minInst;
      } else if (op == 9) {
        address += p.fixed<uint16_t>();
      } else {
        for (int a = 0; a < argCount[op]; ++a) p.uleb();
      }
    }
    if (!p.b.ok) return fail(".debug_line: the program runs past its unit");
    rd.pos = unitEnd;
  }
  for (auto& [fn, rows] : out.byFunction_)
    std::stable_sort(rows.begin(), rows.end(), [](const SourceLine& a, const SourceLine& c) { return a.address < c.address; });
  return out;
}

std::optional<SourceLine> CubinLines::at(const std::string& function, uint64_t pc) const {
  const auto f = byFunction_.find(function);
  if (f == byFunction_.end() || f->second.empty()) return std::nullopt;
  const auto it = std::upper_bound(f->second.begin(), f->second.end(), pc,
                                   [](uint64_t v, const SourceLine& r) { return v < r.address; });
  if (it == f->second.begin()) return std::nullopt;
  return *std::prev(it);
}

std::string withSourceLines(const std::string& text, const CubinLines& lines, const std::string& function,
                            const std::string& file) {
  static const std::string kMark = "SASS +0x";
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(kMark); at != std::string::npos; at = text.find(kMark, at + kMark.size())) {
    size_t end = at + kMark.size();
    while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == at + kMark.size()) continue;
    uint64_t pc = 0;
    const char* first = text.data() + at + kMark.size();
    if (file.empty() || std::from_chars(first, text.data() + end, pc, 16).ec != std::errc()) continue;
    // The last row at or before pc in the user's file: an instruction of the prelude's Op(),
    // inlined, belongs to the user's line that called it. The table may name the file with its
    // directory or without: the same file by its last part.
    const auto base = [](const std::string& f) { return f.substr(f.find_last_of('/') == std::string::npos ? 0 : f.find_last_of('/') + 1); };
    const auto rows = lines.functions().find(function);
    const SourceLine* l = nullptr;
    if (rows != lines.functions().end())
      for (const SourceLine& r : rows->second) {
        if (r.address > pc) break;
        if (r.line > 0 && base(r.file) == base(file)) l = &r;
      }
    if (!l) continue;
    out += text.substr(from, at - from) + "line " + std::to_string(l->line) + ", ";
    from = at;
  }
  return out + text.substr(from);
}

}  // namespace rl::usercode
