// test_auth_guides.cc — the Firebase C++ guides' code for password accounts, managing users and
// linking accounts (firebase.google.com/docs/auth/cpp/password-auth, manage-users,
// account-linking), each block as the guide prints it inside a function, run in order against
// the emulator in both flavors; the test waits for each call's *LastResult and checks its effect.
// One line differs, marked: the guides' merge block assigns an AuthResult to a User*, which does
// not compile against the SDK's own headers either.
#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "firebase/auth.h"
#include "fixtures.h"

// The guides call UpdateEmail, which the SDK deprecates.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
// The guides' callbacks leave user_data unused.
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"

namespace {

// The guides' "wait on the current thread" helper (their app provides it).
void Wait(int milliseconds) { std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds)); }

// ---- password-auth: "Create a password-based account", "Sign in a user" ----
void CreateAccount(firebase::auth::Auth* auth, const char* email, const char* password) {
  firebase::Future<firebase::auth::AuthResult> result =
      auth->CreateUserWithEmailAndPassword(email, password);
}

void CheckCreateAccount(firebase::auth::Auth* auth) {
  firebase::Future<firebase::auth::AuthResult> result =
      auth->CreateUserWithEmailAndPasswordLastResult();
  if (result.status() == firebase::kFutureStatusComplete) {
    if (result.error() == firebase::auth::kAuthErrorNone) {
      const firebase::auth::AuthResult auth_result = *result.result();
      printf("Create user succeeded for email %s\n",
             auth_result.user.email().c_str());
    } else {
      printf("Created user failed with error '%s'\n", result.error_message());
    }
  }
}

void SignIn(firebase::auth::Auth* auth, const char* email, const char* password) {
  firebase::Future<firebase::auth::AuthResult> result =
      auth->SignInWithEmailAndPassword(email, password);
}

// ---- manage-users ----
class MyAuthStateListener : public firebase::auth::AuthStateListener {
 public:
  void OnAuthStateChanged(firebase::auth::Auth* auth) override {
    firebase::auth::User user = auth->current_user();
    if (user.is_valid()) {
      // User is signed in
      printf("OnAuthStateChanged: signed_in %s\n", user.uid().c_str());
    } else {
      // User is signed out
      printf("OnAuthStateChanged: signed_out\n");
    }
    // ...
  }
};

void GetProfile(firebase::auth::Auth* auth) {
  firebase::auth::User user = auth->current_user();
  if (user.is_valid()) {
    std::string name = user.display_name();
    std::string email = user.email();
    std::string photo_url = user.photo_url();
    // The user's ID, unique to the Firebase project.
    // Do NOT use this value to authenticate with your backend server,
    // if you have one. Use firebase::auth::User::Token() instead.
    std::string uid = user.uid();
  }
}

// Returns the providers the guide's loop saw (the guide's body only reads them).
std::vector<std::string> GetProviderProfiles(firebase::auth::Auth* auth) {
  std::vector<std::string> seen;
  firebase::auth::User user = auth->current_user();
  if (user.is_valid()) {
    for (auto it = user.provider_data().begin();
         it != user.provider_data().end(); ++it) {
      firebase::auth::UserInfoInterface profile = *it;
      // Id of the provider (ex: google.com)
      std::string providerId = profile.provider_id();

      // UID specific to the provider
      std::string uid = profile.uid();

      // Name, email address, and profile photo Url
      std::string name = profile.display_name();
      std::string email = profile.email();
      std::string photoUrl = profile.photo_url();
      seen.push_back(providerId + ":" + uid);  // the test's line
    }
  }
  return seen;
}

void UpdateProfile(firebase::auth::Auth* auth) {
  firebase::auth::User user = auth->current_user();
  if (user.is_valid()) {
    firebase::auth::User::UserProfile profile;
    profile.display_name = "Jane Q. User";
    profile.photo_url = "https://example.com/jane-q-user/profile.jpg";
    user.UpdateUserProfile(profile).OnCompletion(
        [](const firebase::Future<void>& completed_future, void* user_data) {
          // We are probably in a different thread right now.
          if (completed_future.error() == 0) {
            printf("User profile updated.");
          }
        },
        nullptr);  // pass user_data here.
  }
}

void SetEmail(firebase::auth::Auth* auth) {
  firebase::auth::User user = auth->current_user();
  if (user.is_valid()) {
    user.UpdateEmail("user@example.com")
        .OnCompletion(
            [](const firebase::Future<void>& completed_future,
               void* user_data) {
              // We are probably in a different thread right now.
              if (completed_future.error() == 0) {
                printf("User email address updated.");
              }
            },
            nullptr);
  }
}

void SendVerificationEmail(firebase::auth::Auth* auth) {
  firebase::auth::User user = auth->current_user();
  if (user.is_valid()) {
    user.SendEmailVerification().OnCompletion(
        [](const firebase::Future<void>& completed_future, void* user_data) {
          // We are probably in a different thread right now.
          if (completed_future.error() == 0) {
            printf("Email sent.");
          }
        },
        nullptr);
  }
}

void SetPassword(firebase::auth::Auth* auth) {
  firebase::auth::User user = auth->current_user();
  std::string newPassword = "SOME-SECURE-PASSWORD";

  if (user.is_valid()) {
    user.UpdatePassword(newPassword.c_str())
        .OnCompletion(
            [](const firebase::Future<void>& completed_future,
               void* user_data) {
              // We are probably in a different thread right now.
              if (completed_future.error() == 0) {
                printf("password updated.");
              }
            },
            nullptr);
  }
}

void SendPasswordReset(firebase::auth::Auth* auth) {
  std::string emailAddress = "user@example.com";

  auth->SendPasswordResetEmail(emailAddress.c_str())
      .OnCompletion(
          [](const firebase::Future<void>& completed_future,
             void* user_data) {
            // We are probably in a different thread right now.
            if (completed_future.error() == 0) {
              // Email sent.
            } else {
              // An error happened.
              printf("Error %d: %s", completed_future.error(),
                     completed_future.error_message());
            }
          },
          nullptr);
}

void DeleteUser(firebase::auth::Auth* auth) {
  firebase::auth::User user = auth->current_user();
  if (user.is_valid()) {
    user.Delete().OnCompletion(
        [](const firebase::Future<void>& completed_future, void* user_data) {
          if (completed_future.error() == 0) {
            // User deleted.
          } else {
            // An error happened.
            printf("Error %d: %s", completed_future.error(),
                   completed_future.error_message());
          }
        },
        nullptr);
  }
}

void Reauthenticate(firebase::auth::Auth* auth) {
  firebase::auth::User user = auth->current_user();

  // Get auth credentials from the user for re-authentication. The example
  // below shows email and password credentials but there are multiple
  // possible providers, such as GoogleAuthProvider or FacebookAuthProvider.
  firebase::auth::Credential credential =
      firebase::auth::EmailAuthProvider::GetCredential("user@example.com",
                                                       "password1234");

  if (user.is_valid()) {
    user.Reauthenticate(credential)
        .OnCompletion(
            [](const firebase::Future<void>& completed_future,
               void* user_data) {
              if (completed_future.error() == 0) {
                printf("User re-authenticated.");
              }
            },
            nullptr);
  }
}

// ---- account-linking ----
firebase::auth::Credential GoogleCredential(const char* google_id_token) {
  firebase::auth::Credential credential =
      firebase::auth::GoogleAuthProvider::GetCredential(google_id_token,
                                                        nullptr);
  return credential;
}

firebase::auth::Credential EmailCredential(const char* email, const char* password) {
  firebase::auth::Credential credential =
      firebase::auth::EmailAuthProvider::GetCredential(email, password);
  return credential;
}

firebase::Future<firebase::auth::AuthResult> Link(firebase::auth::Auth* auth, const firebase::auth::Credential& credential) {
  // Link the new credential to the currently active user.
  firebase::auth::User current_user = auth->current_user();
  firebase::Future<firebase::auth::AuthResult> result =
      current_user.LinkWithCredential(credential);
  return result;
}

// Returns the uid of the user signed in.
std::string Merge(firebase::auth::Auth* auth, const firebase::auth::Credential& credential) {
  std::string merged;
  // Gather data for the currently signed in User.
  firebase::auth::User current_user = auth->current_user();
  std::string current_email = current_user.email();
  std::string current_provider_id = current_user.provider_id();
  std::string current_display_name = current_user.display_name();
  std::string current_photo_url = current_user.photo_url();

  // Sign in with the new credentials.
  firebase::Future<firebase::auth::AuthResult> result =
      auth->SignInAndRetrieveDataWithCredential(credential);

  // To keep example simple, wait on the current thread until call completes.
  while (result.status() == firebase::kFutureStatusPending) {
    Wait(100);
  }

  // The new User is now active.
  if (result.error() == firebase::auth::kAuthErrorNone) {
    const firebase::auth::User* new_user = &result.result()->user;  // the guide: User* new_user = *result.result();

    // Merge new_user with the user in details.
    // ...
    merged = new_user->uid();  // the test's line
  }
  return merged;
}

firebase::Future<firebase::auth::AuthResult> Unlink(firebase::auth::Auth* auth, const char* providerId) {
  // Unlink the sign-in provider from the currently active user.
  firebase::auth::User current_user = auth->current_user();
  firebase::Future<firebase::auth::AuthResult> result =
      current_user.Unlink(providerId);
  return result;
}

std::string FakeGoogleToken(const char* sub, const char* email) {
  return nlohmann::json{{"sub", sub}, {"email", email}, {"email_verified", true}}.dump();
}

}  // namespace

class AuthGuidesTest : public FlavorAuthTest {};
INSTANTIATE_TEST_SUITE_P(Flavors, AuthGuidesTest, FBS_BOTH_FLAVORS);

TEST_P(AuthGuidesTest, ManageUsers) {
  MyAuthStateListener state_change_listener;
  auth->AddAuthStateListener(&state_change_listener);

  CreateAccount(auth, "first@example.com", "password1234");
  EXPECT_EQ(Completed(auth->CreateUserWithEmailAndPasswordLastResult()).error(), 0);
  CheckCreateAccount(auth);
  std::string uid = auth->current_user().uid();
  GetProfile(auth);
  EXPECT_EQ(GetProviderProfiles(auth), std::vector<std::string>{"password:first@example.com"});

  UpdateProfile(auth);
  EXPECT_EQ(Completed(auth->current_user().UpdateUserProfileLastResult()).error(), 0);
  EXPECT_EQ(auth->current_user().display_name(), "Jane Q. User");

  SetEmail(auth);
  EXPECT_EQ(Completed(auth->current_user().UpdateEmailLastResult()).error(), 0);
  EXPECT_EQ(auth->current_user().email(), "user@example.com");

  SendVerificationEmail(auth);
  EXPECT_EQ(Completed(auth->current_user().SendEmailVerificationLastResult()).error(), 0);

  Reauthenticate(auth);
  EXPECT_EQ(Completed(auth->current_user().ReauthenticateLastResult()).error(), 0);

  SetPassword(auth);
  EXPECT_EQ(Completed(auth->current_user().UpdatePasswordLastResult()).error(), 0);
  auth->SignOut();
  SignIn(auth, "user@example.com", "SOME-SECURE-PASSWORD");
  EXPECT_EQ(Succeeded(auth->SignInWithEmailAndPasswordLastResult()).user.uid(), uid);

  SendPasswordReset(auth);
  EXPECT_EQ(Completed(auth->SendPasswordResetEmailLastResult()).error(), 0);
  std::string codes;
  EXPECT_EQ(emulator().Request("GET", "/emulator/v1/projects/demo-project/oobCodes", "", &codes), 200);
  EXPECT_NE(codes.find("\"requestType\": \"PASSWORD_RESET\""), std::string::npos) << codes;
  EXPECT_NE(codes.find("\"requestType\": \"VERIFY_EMAIL\""), std::string::npos) << codes;

  firebase::auth::User user = auth->current_user();
  DeleteUser(auth);
  EXPECT_EQ(Completed(user.DeleteLastResult()).error(), 0);
  EXPECT_FALSE(auth->current_user().is_valid());
  auth->RemoveAuthStateListener(&state_change_listener);
}

TEST_P(AuthGuidesTest, LinkAccounts) {
  std::string uid = Succeeded(auth->SignInAnonymously()).user.uid();
  std::string google_id_token = FakeGoogleToken("google-jane", "jane@gmail.com");
  firebase::Future<firebase::auth::AuthResult> linked = Link(auth, GoogleCredential(google_id_token.c_str()));
  EXPECT_EQ(Succeeded(linked).user.uid(), uid);
  // The link read the account: Google is its one sign-in method, as the SDK's provider data says.
  std::vector<std::string> expected = {"google.com:google-jane"};
  std::vector<std::string> seen = GetProviderProfiles(auth);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(Succeeded(Unlink(auth, "google.com")).user.uid(), uid);

  // Linking a credential that is another account's fails; the guide's merge signs in to it.
  std::string other = Succeeded(auth->CreateUserWithEmailAndPassword("kim@example.com", "secret-1")).user.uid();
  auth->SignOut();
  Succeeded(auth->SignInAnonymously());
  firebase::auth::Credential kim = EmailCredential("kim@example.com", "secret-1");
  EXPECT_EQ(Completed(Link(auth, kim)).error(), firebase::auth::kAuthErrorEmailAlreadyInUse);
  EXPECT_EQ(Merge(auth, kim), other);
  EXPECT_EQ(auth->current_user().uid(), other);
}
