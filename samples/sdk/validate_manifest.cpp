// validate_manifest: judge TFJob manifests by the training operator v1.9's CRD schema, as
// `kubectl apply --validate=strict` (and `kubectl tfjob lint`) would, without a cluster or
// the plugin: every unknown field with its path and the nearest known name, wrong types,
// a wrong kind or apiVersion; then the operator's own validation.
//
//   ./validate_manifest tfjob.yaml [more.yaml ...]      (- reads stdin)
//
// Exit codes: 0 every TFJob is valid, 1 a problem was found (each on stderr), 2 usage.
#include <tfjob/api/defaults.hpp>    // with_defaults: the operator's defaults
#include <tfjob/api/manifest.hpp>    // parse_tfjobs: YAML/JSON, several documents, judged by the schema
#include <tfjob/api/validation.hpp>  // validate: the operator's webhook rules
#include <tfjob/error.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: validate_manifest FILE...\n";
    return 2;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    std::string text;
    if (path == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::cerr << path << ": cannot be read\n";
        rc = 1;
        continue;
      }
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    try {
      // strict, as kubectl's default: an unknown field is an error, each named with its path
      // (tfjob::FieldValidation::warn collects them instead, and keeps every field)
      for (const auto& job : tfjob::parse_tfjobs(text, path, tfjob::FieldValidation::strict)) {
        auto errs = tfjob::validate(tfjob::with_defaults(job));
        for (const auto& e : errs) std::cerr << path << ": TFJob " << job.metadata.name << ": " << e.to_string() << "\n";
        if (!errs.empty()) rc = 1;
        else std::cout << path << ": TFJob " << job.metadata.name << " is valid\n";
      }
    } catch (const tfjob::validation_error& e) {
      for (const auto& fe : e.errors()) std::cerr << fe.to_string() << "\n";  // `FILE: TFJob NAME: unknown field ...`
      rc = 1;
    } catch (const tfjob::parse_error& e) {  // not YAML/JSON: line and column
      std::cerr << e.what() << "\n";
      rc = 1;
    }
  }
  return rc;
}
