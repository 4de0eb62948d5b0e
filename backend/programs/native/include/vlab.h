/* vlab.h: the robot API for C programs (filled in with the C and C++ runtime). */
#pragma once
