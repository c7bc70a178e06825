// firebase/internal/common.h — the feature macros of the Firebase C++ SDK's headers, fixed for
// fbstorage's C++17 build: move operators and std::function completions are always available.
#ifndef FIREBASE_INTERNAL_COMMON_H_
#define FIREBASE_INTERNAL_COMMON_H_

#ifndef FIREBASE_USE_MOVE_OPERATORS
#define FIREBASE_USE_MOVE_OPERATORS
#endif
#ifndef FIREBASE_USE_STD_FUNCTION
#define FIREBASE_USE_STD_FUNCTION
#endif
#define FIREBASE_DEPRECATED [[deprecated]]

#endif  // FIREBASE_INTERNAL_COMMON_H_
