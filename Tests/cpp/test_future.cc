// test_future.cc — firebase::Future over a shared state: copies, callbacks, release, wait.
#include <gtest/gtest.h>

#include <thread>

#include "firebase/future.h"
#include "internal.h"

using firebase::Future;
using firebase::FutureBase;
using firebase::internal::Promise;

TEST(Future, DefaultIsInvalid) {
  Future<int> future;
  EXPECT_EQ(future.status(), firebase::kFutureStatusInvalid);
  EXPECT_EQ(future.error(), -1);
  EXPECT_EQ(future.result(), nullptr);
  EXPECT_EQ(future.error_message(), nullptr);
  EXPECT_FALSE(future.Wait(0));
}

TEST(Future, CopiesShareTheStateAndSeeTheResult) {
  Promise<std::string> promise;
  Future<std::string> a = promise.future();
  Future<std::string> b = a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.status(), firebase::kFutureStatusPending);
  EXPECT_EQ(a.result(), nullptr);
  promise.Succeed("done");
  EXPECT_EQ(b.status(), firebase::kFutureStatusComplete);
  EXPECT_EQ(*a.result(), "done");
  EXPECT_EQ(a.result(), b.result());
  EXPECT_EQ(a.error(), 0);
  EXPECT_EQ(a.error_message(), nullptr);
}

TEST(Future, FailureKeepsADefaultResultAndTheMessage) {
  Promise<int> promise;
  Future<int> future = promise.future();
  promise.Fail(7, "it broke");
  EXPECT_EQ(future.error(), 7);
  EXPECT_STREQ(future.error_message(), "it broke");
  ASSERT_NE(future.result(), nullptr);
  EXPECT_EQ(*future.result(), 0);
  promise.Succeed(3);  // completes once
  EXPECT_EQ(future.error(), 7);
}

namespace {
void CountCompletion(const Future<int>& future, void* user_data) {
  *static_cast<int*>(user_data) += *future.result();
}
}  // namespace

TEST(Future, OnCompletionWithFunctionPointerAndUserData) {
  Promise<int> promise;
  int total = 0;
  promise.future().OnCompletion(CountCompletion, &total);
  EXPECT_EQ(total, 0);
  promise.Succeed(5);
  EXPECT_EQ(total, 5);
  // Registered after completion: runs at once on the calling thread.
  promise.future().OnCompletion(CountCompletion, &total);
  EXPECT_EQ(total, 10);
}

TEST(Future, OnCompletionWithStdFunctionReplacesThePreviousOne) {
  Promise<int> promise;
  std::vector<std::string> calls;
  Future<int> future = promise.future();
  future.OnCompletion([&](const Future<int>&) { calls.push_back("first"); });
  future.OnCompletion([&](const Future<int>& f) { calls.push_back("second " + std::to_string(*f.result())); });
  promise.Succeed(2);
  EXPECT_EQ(calls, std::vector<std::string>{"second 2"});
}

TEST(Future, UntypedCallbackOnTheBase) {
  Promise<void> promise;
  const FutureBase& base = promise.future();
  int error = -5;
  base.OnCompletion([&](const FutureBase& f) { error = f.error(); });
  promise.Fail(3, "x");
  EXPECT_EQ(error, 3);
}

TEST(Future, DestroyedOrReleasedBeforeCompletionIsSafe) {
  Promise<std::string> promise;
  {
    Future<std::string> dropped = promise.future();
    dropped.OnCompletion([](const Future<std::string>&) {});
  }
  Future<std::string> released = promise.future();
  released.Release();
  EXPECT_EQ(released.status(), firebase::kFutureStatusInvalid);
  promise.Succeed(std::string(1000, 'x'));  // completes with no Future left
}

TEST(Future, WaitReturnsWhenAnotherThreadCompletes) {
  Promise<int> promise;
  Future<int> future = promise.future();
  EXPECT_FALSE(future.Wait(0));
  std::thread completer([promise] { promise.Succeed(42); });
  EXPECT_EQ(*future.Await(FutureBase::kWaitTimeoutInfinite), 42);
  completer.join();
}

TEST(Future, MovedFromIsInvalid) {
  Promise<int> promise;
  Future<int> a = promise.future();
  Future<int> b = std::move(a);
  EXPECT_EQ(a.status(), firebase::kFutureStatusInvalid);  // NOLINT: the moved-from state is specified
  EXPECT_EQ(b.status(), firebase::kFutureStatusPending);
  EXPECT_NE(a, b);
}
