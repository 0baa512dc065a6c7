// Test helper: the message of the exception a call throws, checked to be of the expected type.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>

namespace multihead::testing {

// The message of the exception E that `call` throws (a test failure if it throws none or another).
template <class E, class F>
std::string message_of(F&& call) {
  try {
    call();
  } catch (const std::exception& e) {
    if (!dynamic_cast<const E*>(&e)) ADD_FAILURE() << "threw another exception type: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "threw nothing";
  return "";
}

}  // namespace multihead::testing
