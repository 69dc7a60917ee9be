// The bodies of output.hpp (compiled once, not in every command that includes it).
#include "output.hpp"

namespace tfjob::cli {

OutputFormat parse_output_format(const std::string& o, const std::vector<std::string>& allowed) {
  auto ok = [&](const char* f) {
    if (allowed.empty()) return true;
    for (const auto& a : allowed)
      if (a == f) return true;
    return false;
  };
  auto list = [&] {
    std::string s;
    for (const auto& a : (allowed.empty() ? std::vector<std::string>{"json", "yaml", "name", "wide"} : allowed))
      s += (s.empty() ? "" : ", ") + a;
    return s;
  };
  if (o.empty()) return OutputFormat::table;
  if (o == "json" && ok("json")) return OutputFormat::json;
  if (o == "yaml" && ok("yaml")) return OutputFormat::yaml;
  if (o == "name" && ok("name")) return OutputFormat::name;
  if (o == "wide" && ok("wide")) return OutputFormat::wide;
  throw error("unable to match a printer suitable for the output format \"" + o +
              "\", allowed formats are: " + list());
}

std::string object_name(const nlohmann::json& obj) {
  std::string kind = tfjob::detail::value_at(obj, "kind", std::string());
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string av = tfjob::detail::value_at(obj, "apiVersion", std::string());
  auto slash = av.find('/');
  std::string group = slash == std::string::npos ? "" : av.substr(0, slash);
  return kind + (group.empty() ? "" : "." + group) + "/" + metadata_of(obj).name;
}

std::string kubectl_json(const nlohmann::json& obj, int indent) {
  const std::string text = obj.dump(indent);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' && (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

void print_objects(std::ostream& out, const std::vector<nlohmann::json>& objs, OutputFormat f,
                   Many many) {
  const nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", objs}, {"metadata", {{"resourceVersion", ""}}}};
  switch (f) {
    case OutputFormat::json:
      out << kubectl_json(objs.size() == 1 && many == Many::documents ? objs[0] : list) << "\n";
      break;
    case OutputFormat::yaml:
      out << (many == Many::list ? to_yaml(list) : to_yaml_documents(objs));
      break;
    case OutputFormat::name:
      for (const auto& o : objs) out << object_name(o) << "\n";
      break;
    default:
      throw error("print_objects: table output needs a Table");
  }
}

void omit_managed_fields(nlohmann::json& obj) {
  if (auto md = obj.find("metadata"); md != obj.end() && md->is_object()) md->erase("managedFields");
}

bool use_color(const std::string& policy, int fd) {
  if (policy == "always") return true;
  if (policy == "never") return false;
  const char* nc = std::getenv("NO_COLOR");
  if (nc && *nc) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return ::isatty(fd) != 0;
}

const char* pod_color(const std::string& name) {
  static const char* palette[] = {"\033[36m", "\033[32m", "\033[35m", "\033[33m", "\033[34m", "\033[31m",
                                  "\033[96m", "\033[92m", "\033[95m", "\033[93m", "\033[94m", "\033[91m"};
  std::uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return palette[h % (sizeof(palette) / sizeof(palette[0]))];
}

std::string paint(const std::string& text, const char* code, bool on) {
  return on ? std::string(code) + text + color::reset : text;
}

}  // namespace tfjob::cli
