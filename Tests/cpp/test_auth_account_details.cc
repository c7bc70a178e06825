// test_auth_account_details.cc — User::provider_data() and User::metadata() of firebase::auth
// against the bundled emulator, in both flavors: the ID token's sign-in methods right after a
// sign-in, then the account's (providerUserInfo, creation and last sign-in times) once Reload()
// or a link read it, as the SDK's User shows them.
#include <nlohmann/json.hpp>

#include <chrono>

#include "firebase/auth.h"
#include "fixtures.h"

using firebase::auth::GoogleAuthProvider;
using firebase::auth::User;
using firebase::auth::UserInfoInterface;

namespace {

uint64_t NowMs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

const UserInfoInterface* Find(const User& user, const std::string& provider_id) {
  for (const auto& info : user.provider_data())
    if (info.provider_id() == provider_id) return &info;
  return nullptr;
}

class AuthAccountDetailsTest : public FlavorAuthTest {};
INSTANTIATE_TEST_SUITE_P(Flavors, AuthAccountDetailsTest, FBS_BOTH_FLAVORS);

TEST_P(AuthAccountDetailsTest, ProviderDataAndMetadataComeFromTheAccountOnceRead) {
  const uint64_t before = NowMs();
  User user = Succeeded(auth->CreateUserWithEmailAndPassword("dora@example.com", "secret-1")).user;
  const uint64_t after = NowMs();
  // The sign-in read the account (as the SDK does): its sign-in method and dates are there at once.
  ASSERT_EQ(user.provider_data().size(), 1u);
  EXPECT_EQ(user.provider_data()[0].provider_id(), "password");
  const uint64_t created_at_sign_in = user.metadata().creation_timestamp;
  EXPECT_GE(created_at_sign_in + 1000, before);
  EXPECT_LE(created_at_sign_in, after + 1000);

  EXPECT_EQ(Completed(user.Reload()).error(), 0);
  const firebase::auth::UserMetadata metadata = user.metadata();
  EXPECT_EQ(metadata.creation_timestamp, created_at_sign_in);
  EXPECT_GE(metadata.creation_timestamp + 1000, before);
  EXPECT_LE(metadata.creation_timestamp, after + 1000);
  EXPECT_GE(metadata.last_sign_in_timestamp, metadata.creation_timestamp);
  ASSERT_EQ(user.provider_data().size(), 1u);
  EXPECT_EQ(user.provider_data().begin(), user.provider_data().begin());  // one vector while unchanged
  const UserInfoInterface& password = user.provider_data()[0];
  EXPECT_EQ(password.provider_id(), "password");
  EXPECT_EQ(password.uid(), "dora@example.com");
  EXPECT_EQ(password.email(), "dora@example.com");
  EXPECT_EQ(password.display_name(), "");

  // Linking Google reads the account: its entry carries what the identity provider told.
  const nlohmann::json dora = {{"sub", "google-dora"}, {"email", "dora@example.com"}, {"name", "Dora"},
                               {"picture", "https://example.com/dora.png"}};
  Succeeded(user.LinkWithCredential(GoogleAuthProvider::GetCredential(dora.dump().c_str(), nullptr)));
  EXPECT_EQ(user.provider_data().size(), 2u);
  const UserInfoInterface* google = Find(user, "google.com");
  ASSERT_NE(google, nullptr);
  EXPECT_EQ(google->uid(), "google-dora");
  EXPECT_EQ(google->email(), "dora@example.com");
  EXPECT_EQ(google->display_name(), "Dora");
  EXPECT_EQ(google->photo_url(), "https://example.com/dora.png");
  EXPECT_NE(Find(user, "password"), nullptr);
  EXPECT_EQ(user.metadata().creation_timestamp, metadata.creation_timestamp);

  Succeeded(user.Unlink(GoogleAuthProvider::kProviderId));
  EXPECT_EQ(Find(user, "google.com"), nullptr);
  EXPECT_EQ(user.provider_data().size(), 1u);
}

}  // namespace
