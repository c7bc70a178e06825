package fbstorage

/*
#include "shim.h"
*/
import "C"

// UserInfo is one sign-in method of an account (the SDKs' providerData): ProviderID
// ("password", "google.com", …) and the user's id at that provider (UID; the email for
// "password"), with what the provider told ("" when it told nothing).
type UserInfo struct {
	ProviderID, UID                           string
	Email, DisplayName, PhotoURL, PhoneNumber string
}

// copyProviders copies the sign-in methods of a user snapshot (borrowed for the call).
func copyProviders(u *C.fbs_user) []UserInfo {
	count := C.fbs_user_provider_count(u)
	providers := make([]UserInfo, 0, int(count))
	for i := C.size_t(0); i < count; i++ {
		providers = append(providers, UserInfo{
			ProviderID: goString(C.fbs_user_provider_id(u, i)), UID: goString(C.fbs_user_provider_uid(u, i)),
			Email: goString(C.fbs_user_provider_email(u, i)), DisplayName: goString(C.fbs_user_provider_display_name(u, i)),
			PhotoURL: goString(C.fbs_user_provider_photo_url(u, i)), PhoneNumber: goString(C.fbs_user_provider_phone_number(u, i)),
		})
	}
	return providers
}
