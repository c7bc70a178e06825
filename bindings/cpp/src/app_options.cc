// app_options.cc — AppOptions from a google-services.json configuration, as the desktop SDK
// reads it (its schema: app/google_services.fbs; unknown fields are ignored), parsed with
// nlohmann::json.
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "firebase/app.h"
#include "internal.h"

namespace firebase {

namespace {

using nlohmann::json;

// The SDK's bound on a configuration file.
constexpr std::streamoff kMaxConfigBytes = 500 * 1024;

struct ConfigError {
  std::string reason;
};

// object[key] when object is an object that has it; throws when it has another type than wanted.
const json* Field(const json* object, const char* key, json::value_t wanted) {
  if (!object || !object->is_object()) return nullptr;
  auto found = object->find(key);
  if (found == object->end() || found->is_null()) return nullptr;
  if (found->type() != wanted) throw ConfigError{std::string("'") + key + "' has the wrong type"};
  return &*found;
}

const json* Object(const json* object, const char* key) { return Field(object, key, json::value_t::object); }
const json* Array(const json* object, const char* key) { return Field(object, key, json::value_t::array); }

std::optional<std::string> String(const json* object, const char* key) {
  const json* value = Field(object, key, json::value_t::string);
  return value ? std::optional<std::string>(value->get<std::string>()) : std::nullopt;
}

// Sets a field through setter when the configuration has it.
void SetIf(AppOptions* options, void (AppOptions::*setter)(const char*), const std::optional<std::string>& value) {
  if (value) (options->*setter)(value->c_str());
}

void Load(const char* config, AppOptions* options) {
  json root = json::parse(config, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) throw ConfigError{"not valid JSON"};
  const json* project_info = Object(&root, "project_info");
  if (!project_info) throw ConfigError{"'project_info' not found"};
  // As the SDK: the first client with an Android package name.
  const json* selected = nullptr;
  if (const json* clients = Array(&root, "client"))
    for (const json& client : *clients)
      if (String(Object(Object(&client, "client_info"), "android_client_info"), "package_name")) {
        selected = &client;
        break;
      }
  if (!selected) throw ConfigError{"'client' data (app id, API key) not found"};

  SetIf(options, &AppOptions::set_database_url, String(project_info, "firebase_url"));
  SetIf(options, &AppOptions::set_messaging_sender_id, String(project_info, "project_number"));
  SetIf(options, &AppOptions::set_storage_bucket, String(project_info, "storage_bucket"));
  SetIf(options, &AppOptions::set_project_id, String(project_info, "project_id"));
  const json* client_info = Object(selected, "client_info");
  SetIf(options, &AppOptions::set_package_name, String(Object(client_info, "android_client_info"), "package_name"));
  SetIf(options, &AppOptions::set_app_id, String(client_info, "mobilesdk_app_id"));
  if (const json* api_keys = Array(selected, "api_key"))
    for (const json& key : *api_keys)
      if (auto current = String(&key, "current_key")) {
        options->set_api_key(current->c_str());
        break;
      }
  SetIf(options, &AppOptions::set_ga_tracking_id,
        String(Object(Object(Object(selected, "services"), "analytics_service"), "analytics_property"), "tracking_id"));
}

// Loads config into options (left untouched on failure); the reason when it fails.
std::optional<std::string> LoadConfig(const char* config, AppOptions* options) {
  AppOptions loaded = *options;
  try {
    Load(config, &loaded);
  } catch (const ConfigError& e) {
    return e.reason;
  }
  *options = loaded;
  return std::nullopt;
}

// Reads one file (at most kMaxConfigBytes) into options; the reason when it cannot.
std::optional<std::string> LoadFile(const std::string& path, AppOptions* options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::string("cannot be opened");
  file.seekg(0, std::ios::end);
  if (file.tellg() > kMaxConfigBytes) return "is larger than " + std::to_string(kMaxConfigBytes) + " bytes";
  file.seekg(0, std::ios::beg);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return std::string("cannot be read");
  if (auto reason = LoadConfig(text.c_str(), options)) return "is not a Firebase configuration: " + *reason;
  return std::nullopt;
}

}  // namespace

AppOptions* AppOptions::LoadFromJsonConfig(const char* config, AppOptions* options) {
  AppOptions loaded = options ? *options : AppOptions();
  if (auto reason = config ? LoadConfig(config, &loaded) : std::string("config is null")) {
    firebase::internal::Log(kLogLevelError,
                            "firebase::AppOptions::LoadFromJsonConfig: failed to parse the Firebase config: %s",
                            reason->c_str());
    return nullptr;
  }
  if (!options) return new AppOptions(loaded);
  *options = loaded;
  return options;
}

namespace internal {

bool LoadDefaultAppOptions(AppOptions* options) {
  std::string reasons;
  for (const char* name : {"google-services-desktop.json", "google-services.json"}) {
    auto reason = LoadFile(name, options);
    if (!reason) return true;
    reasons += std::string(reasons.empty() ? "" : "; ") + name + " " + *reason;
  }
  firebase::internal::Log(kLogLevelError, "firebase::App::Create: unable to load the Firebase app options (%s)", reasons.c_str());
  return false;
}

}  // namespace internal
}  // namespace firebase
