// plugins/robot_software_api.h: the RobotAPI for C++ programs, over the lab's robot API
// (vlab.h).
//
// A program is a class deriving RobotSoftware: the lab makes one instance when the
// program starts, calls its preStep() before every control step's physics (set the
// actuators' commands there) and its postStep() with every step's fresh readings; with
// RATE:EVERY_STEP in its project file, at every physics step, as VLAB did.
// Sensors and actuators are looked up by name through _robot, as the class they are:
//
//     GPSSensor *gps = _robot->getSensorInstance<GPSSensor>("GPS1");
//     if (gps) { Vector3D p; if (gps->getValue(p)) cout << gps->getValueString() << endl; }
//
// A lookup answers a null pointer when the robot has no part of that name, or when the
// part is of another kind (a Motor asked for as a GPSSensor). The pointer stays valid
// for the whole run. cout, cerr and printf print to the robot's console, one line per
// '\n' (endl); the clock (<chrono>, time()) is the lab's simulation time, and
// <random>'s random_device gives the same numbers every run.
//
// The file ends with ROBOT_SOFTWARE_PLUGIN(YourClass, "display name").
#ifndef VLAB_ROBOT_SOFTWARE_API_H
#define VLAB_ROBOT_SOFTWARE_API_H

#include <vlab.h>

#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// Programs are built into one module: a class needs no export mark (VLAB's name for it).
#define PLUGIN_EXPORT

// The RobotAPI's real number.
typedef double dReal;

// A point or a vector: metres (GPS), m/s² (accelerometer), rad/s (gyroscope), newtons.
struct Vector3D {
    dReal x = 0, y = 0, z = 0;
    Vector3D() {}
    Vector3D(dReal x_, dReal y_, dReal z_) : x(x_), y(y_), z(z_) {}
};

inline std::ostream &operator<<(std::ostream &out, const Vector3D &v) {
    return out << '(' << v.x << ", " << v.y << ", " << v.z << ')';
}

// A pose on the ground plane: metres, and the heading in radians.
struct Pose2D {
    dReal x = 0, y = 0, theta = 0;
};

// A planar scan: ranges[i] along angleMin + i * angleStep (radians, counter-clockwise
// from forward); maxRange where nothing was hit.
struct LaserScan {
    dReal angleMin = 0, angleStep = 0, maxRange = 0;
    std::vector<dReal> ranges;
};

// Contact on a body: whether anything touches it, the total force and where (NaN when
// nothing touches), world frame.
struct ContactState {
    bool touching = false;
    Vector3D force, point;
};

// An IMU's attitude: roll, pitch, yaw (radians), and the same as a quaternion.
struct Orientation {
    dReal roll = 0, pitch = 0, yaw = 0;
    dReal w = 1, x = 0, y = 0, z = 0;
};

// A beacon seen: its id, distance (m), bearing and elevation (radians).
struct Landmark {
    std::string id;
    dReal distance = 0, bearing = 0, elevation = 0;
};

// A radio message heard: who sent it and what it says.
struct RadioMessage {
    std::string from, text;
};

// A camera's image: RGB, 3 bytes a pixel, row-major, top row first.
struct Image {
    int width = 0, height = 0;
    std::vector<uint8_t> rgb;
};

// A depth camera's image: millimetres along the optical axis, row-major, top row first.
struct DepthImage {
    int width = 0, height = 0;
    dReal maxRange = 0;
    std::vector<uint16_t> millimetres;
};

namespace vlab_detail {

// Calls a vlab (index, buf, cap) -> length function until the buffer holds the string.
template <class Call> std::string read_string(Call call) {
    std::string text(64, '\0');
    int32_t len = call(&text[0], text.size());
    if (len < 0) return std::string();
    if (static_cast<size_t>(len) > text.size()) {
        text.resize(len);
        len = call(&text[0], text.size());
        if (len < 0) return std::string();
    }
    text.resize(static_cast<size_t>(len) < text.size() ? len : text.size());
    return text;
}

// One address per class, to tell apart lookups of one part as different classes
// without RTTI.
template <class T> const void *tag() {
    static const char mark = 0;
    return &mark;
}

inline bool is_one_of(const std::string &kind, std::initializer_list<const char *> kinds) {
    for (const char *k : kinds)
        if (kind == k) return true;
    return false;
}

} // namespace vlab_detail

// A sensor of the robot: its name, its catalogue type and its latest reading.
class Sensor {
public:
    Sensor(int32_t index, std::string name, std::string kind)
        : _index(index), _name(std::move(name)), _kind(std::move(kind)) {}
    virtual ~Sensor() {}

    const std::string &getName() const { return _name; }
    // Its catalogue type (SimpleGPS, Lidar, ...).
    const std::string &getKind() const { return _kind; }
    int32_t getIndex() const { return _index; }
    // Whether it has measured yet.
    bool hasValue() const { return vlab_reading_type(_index) > VLAB_READING_NONE; }
    // The latest reading's numbers, in the layout of docs/programs.md (empty before the first).
    std::vector<dReal> getValues() const {
        std::vector<dReal> values(vlab_reading_len(_index) > 0 ? vlab_reading_len(_index) : 0);
        int32_t count = vlab_reading_read(_index, values.data(), values.size());
        values.resize(count > 0 && static_cast<size_t>(count) < values.size() ? count : values.size());
        return values;
    }
    // The latest reading in words: "1.5", "(1, 2, 0.25)", or "no reading".
    virtual std::string getValueString() const {
        std::vector<dReal> values = getValues();
        if (!hasValue()) return "no reading";
        std::ostringstream out;
        if (values.size() == 1) {
            out << values[0];
            return out.str();
        }
        out << '(';
        for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
        out << ')';
        return out.str();
    }
    // Any sensor is a Sensor.
    static bool accepts(const std::string &) { return true; }

protected:
    bool readVector(Vector3D &v) const {
        if (vlab_reading_type(_index) != VLAB_READING_VECTOR) return false;
        v = Vector3D(value(0), value(1), value(2));
        return true;
    }
    bool readScalar(dReal &v) const {
        if (vlab_reading_type(_index) != VLAB_READING_SCALAR) return false;
        v = value(0);
        return true;
    }
    dReal value(int32_t k) const { return vlab_reading_value(_index, k); }
    std::string keyName(int32_t k) const {
        int32_t index = _index;
        return vlab_detail::read_string([=](char *buf, size_t cap) { return vlab_key_name(index, k, buf, cap); });
    }

    int32_t _index;
    std::string _name, _kind;
};

// A SimpleGPS: the position, metres.
class GPSSensor : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(Vector3D &position) const { return readVector(position); }
    static bool accepts(const std::string &kind) { return kind == "SimpleGPS"; }
};

// A SimpleAccelerometer: the acceleration, m/s².
class Accelerometer : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(Vector3D &acceleration) const { return readVector(acceleration); }
    static bool accepts(const std::string &kind) { return kind == "SimpleAccelerometer"; }
};

// A Gyro: the angular rate, rad/s.
class Gyroscope : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(Vector3D &rate) const { return readVector(rate); }
    static bool accepts(const std::string &kind) { return kind == "Gyro"; }
};

// A Compass: the heading, radians.
class Compass : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(dReal &heading) const { return readScalar(heading); }
    static bool accepts(const std::string &kind) { return kind == "Compass"; }
};

// A LaserDistance, Sonar or Infrared: the distance ahead, metres.
class DistanceSensor : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(dReal &distance) const { return readScalar(distance); }
    static bool accepts(const std::string &kind) {
        return vlab_detail::is_one_of(kind, {"LaserDistance", "Sonar", "Infrared"});
    }
};

// A Lidar: a planar scan.
class Lidar : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(LaserScan &scan) const {
        if (vlab_reading_type(_index) != VLAB_READING_SCAN) return false;
        std::vector<dReal> values = getValues();
        if (values.size() < 3) return false;
        scan.angleMin = values[0];
        scan.angleStep = values[1];
        scan.maxRange = values[2];
        scan.ranges.assign(values.begin() + 3, values.end());
        return true;
    }
    std::string getValueString() const override {
        LaserScan scan;
        if (!getValue(scan)) return "no reading";
        std::ostringstream out;
        out << scan.ranges.size() << " ranges";
        return out.str();
    }
    static bool accepts(const std::string &kind) { return kind == "Lidar"; }
};

// An Encoder: ticks since the start (signed) and the angle they stand for, radians.
class Encoder : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(int64_t &ticks) const {
        if (vlab_reading_type(_index) != VLAB_READING_TICKS) return false;
        ticks = static_cast<int64_t>(value(0));
        return true;
    }
    bool getAngle(dReal &angle) const {
        if (vlab_reading_type(_index) != VLAB_READING_TICKS) return false;
        angle = value(1);
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "Encoder"; }
};

// A JointState: the joint's coordinate (radians or metres) and its rate.
class JointSensor : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(dReal &position) const {
        if (vlab_reading_type(_index) != VLAB_READING_JOINT) return false;
        position = value(0);
        return true;
    }
    bool getVelocity(dReal &velocity) const {
        if (vlab_reading_type(_index) != VLAB_READING_JOINT) return false;
        velocity = value(1);
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "JointState"; }
};

// An Odometry: the pose the wheels' turns add up to.
class Odometry : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(Pose2D &pose) const {
        if (vlab_reading_type(_index) != VLAB_READING_POSE2D) return false;
        pose.x = value(0);
        pose.y = value(1);
        pose.theta = value(2);
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "Odometry"; }
};

// A Touch (a bumper) or ForceResistance: whether anything touches it.
class TouchSensor : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(bool &touching) const {
        int32_t type = vlab_reading_type(_index);
        if (type != VLAB_READING_SCALAR && type != VLAB_READING_CONTACT) return false;
        touching = value(0) != 0;
        return true;
    }
    static bool accepts(const std::string &kind) { return vlab_detail::is_one_of(kind, {"Touch", "ForceResistance"}); }
};

// A ForceResistance: the contact's force and point.
class ForceSensor : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(ContactState &contact) const {
        if (vlab_reading_type(_index) != VLAB_READING_CONTACT) return false;
        contact.touching = value(0) != 0;
        contact.force = Vector3D(value(1), value(2), value(3));
        contact.point = Vector3D(value(4), value(5), value(6));
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "ForceResistance"; }
};

// An IMU: the body's attitude.
class IMU : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(Orientation &o) const {
        if (vlab_reading_type(_index) != VLAB_READING_ORIENTATION) return false;
        o.roll = value(0);
        o.pitch = value(1);
        o.yaw = value(2);
        o.w = value(3);
        o.x = value(4);
        o.y = value(5);
        o.z = value(6);
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "IMU"; }
};

// A Camera: the latest image (its pixels come once per new image and are kept).
class Camera : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(Image &image) const {
        if (vlab_reading_type(_index) != VLAB_READING_IMAGE) return false;
        image.width = static_cast<int>(value(0));
        image.height = static_cast<int>(value(1));
        image.rgb.resize(vlab_reading_bytes(_index, nullptr, 0));
        vlab_reading_bytes(_index, image.rgb.data(), image.rgb.size());
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "Camera"; }
};

// A DepthCamera: the latest depth image.
class DepthCamera : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(DepthImage &image) const {
        if (vlab_reading_type(_index) != VLAB_READING_DEPTH_IMAGE) return false;
        image.width = static_cast<int>(value(0));
        image.height = static_cast<int>(value(1));
        image.maxRange = value(2);
        std::vector<uint8_t> bytes(vlab_reading_bytes(_index, nullptr, 0));
        vlab_reading_bytes(_index, bytes.data(), bytes.size());
        image.millimetres.resize(bytes.size() / 2);
        for (size_t i = 0; i < image.millimetres.size(); ++i)
            image.millimetres[i] = static_cast<uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8));
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "DepthCamera"; }
};

// A LandmarkSensor: the beacons in view.
class LandmarkSensor : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(std::vector<Landmark> &seen) const {
        if (vlab_reading_type(_index) != VLAB_READING_LANDMARKS) return false;
        std::vector<dReal> values = getValues();
        seen.clear();
        for (size_t k = 0; k + 2 < values.size(); k += 3) {
            Landmark landmark;
            landmark.id = keyName(static_cast<int32_t>(k / 3));
            landmark.distance = values[k];
            landmark.bearing = values[k + 1];
            landmark.elevation = values[k + 2];
            seen.push_back(landmark);
        }
        return true;
    }
    static bool accepts(const std::string &kind) { return kind == "LandmarkSensor"; }
};

// A Radio: the messages heard this step, and sending one with the step's answer.
class Radio : public Sensor {
public:
    using Sensor::Sensor;
    bool getValue(std::vector<RadioMessage> &heard) const {
        if (vlab_reading_type(_index) != VLAB_READING_RADIO) return false;
        heard.clear();
        int32_t count = static_cast<int32_t>(value(0));
        for (int32_t k = 0; k < count; ++k) heard.push_back(RadioMessage{keyName(2 * k), keyName(2 * k + 1)});
        return true;
    }
    bool send(const std::string &text) { return vlab_radio_send(text.data(), text.size()) == VLAB_OK; }
    static bool accepts(const std::string &kind) { return kind == "Radio"; }
};

// A Keyboard: the keys the robot's owner holds in the lab's page.
class RemoteControl : public Sensor {
public:
    using Sensor::Sensor;
    // v = 1 while the key (any case: "I", "ArrowUp", "Space") is held, 0 if not.
    bool getValue(std::string key, int &v) const {
        int32_t held = vlab_key_held(_index, key.data(), key.size());
        if (held < 0) return false;
        v = held;
        return true;
    }
    // Every key held, upper case.
    bool getKeys(std::vector<std::string> &keys) const {
        keys.clear();
        int32_t count = vlab_reading_len(_index);
        for (int32_t k = 0; k < count; ++k) keys.push_back(keyName(k));
        return true;
    }
    std::string getValueString() const override {
        std::vector<std::string> keys;
        getKeys(keys);
        std::string text;
        for (const std::string &key : keys) text += (text.empty() ? "" : " ") + key;
        return text;
    }
    static bool accepts(const std::string &kind) { return kind == "Keyboard"; }
};
typedef RemoteControl Keyboard;

// An actuator of the robot: its name and catalogue type. Commands hold until changed;
// one refused (the wrong kind, not a finite number) says why in the console.
class Actuator {
public:
    Actuator(int32_t index, std::string name, std::string kind)
        : _index(index), _name(std::move(name)), _kind(std::move(kind)) {}
    virtual ~Actuator() {}

    const std::string &getName() const { return _name; }
    const std::string &getKind() const { return _kind; }
    int32_t getIndex() const { return _index; }
    static bool accepts(const std::string &) { return true; }

protected:
    int32_t _index;
    std::string _name, _kind;
};

// A SimpleMotor (setSpeed: rad/s) or SimpleServo (setPosition: radians).
class Motor : public Actuator {
public:
    using Actuator::Actuator;
    bool setSpeed(dReal speed) { return vlab_set_speed(_index, speed) == VLAB_OK; }
    bool setPosition(dReal position) { return vlab_set_position(_index, position) == VLAB_OK; }
    static bool accepts(const std::string &kind) { return vlab_detail::is_one_of(kind, {"SimpleMotor", "SimpleServo"}); }
};

// A SimpleServo: a Motor held at a position.
class Servo : public Motor {
public:
    using Motor::Motor;
    static bool accepts(const std::string &kind) { return kind == "SimpleServo"; }
};

// A DiffDrive: the robot's forward speed (m/s) and turn rate (rad/s, counter-clockwise).
class DiffDrive : public Actuator {
public:
    using Actuator::Actuator;
    bool setVelocity(dReal v, dReal omega) { return vlab_set_drive(_index, v, omega) == VLAB_OK; }
    static bool accepts(const std::string &kind) { return kind == "DiffDrive"; }
};

// The robot: its parts by name, the lab's clock, and what the program draws.
class Robot {
public:
    // The sensor named `name` as a T, or nullptr when there is none or it is of another kind.
    template <class T> T *getSensorInstance(const std::string &name) {
        return find<T>(_sensors, name, vlab_sensor_find, vlab_sensor_kind);
    }
    // The actuator named `name` as a T, or nullptr when there is none or it is of another kind.
    template <class T> T *getActuatorInstance(const std::string &name) {
        return find<T>(_actuators, name, vlab_actuator_find, vlab_actuator_kind);
    }

    int getSensorCount() const { return vlab_sensor_count(); }
    int getActuatorCount() const { return vlab_actuator_count(); }
    // Simulation seconds, the lab's step and seconds per control step, of the latest readings.
    dReal getTime() const { return vlab_time(); }
    int64_t getStep() const { return vlab_step_count(); }
    dReal getDt() const { return vlab_dt(); }
    // The same every run: seed your own random numbers with it.
    uint64_t getSeed() const { return static_cast<uint64_t>(vlab_seed()); }
    // A console line of its own (cout prints too).
    void log(const std::string &text) const { vlab_log(text.data(), text.size()); }

    // What the program thinks, drawn in the lab (color: a name or "#rrggbb").
    bool publishEstimate(dReal x, dReal y, dReal theta) { return vlab_publish_estimate(x, y, theta) == VLAB_OK; }
    bool drawPoints(const std::vector<Vector3D> &points, const std::string &color, bool keep = false) {
        std::vector<double> xyz = flat(points);
        return vlab_draw_points(xyz.data(), points.size(), color.data(), color.size(), keep) == VLAB_OK;
    }
    bool drawLine(const std::vector<Vector3D> &points, const std::string &color, bool keep = false) {
        std::vector<double> xyz = flat(points);
        return vlab_draw_lines(xyz.data(), points.size(), color.data(), color.size(), keep) == VLAB_OK;
    }
    bool drawText(const Vector3D &at, const std::string &text, const std::string &color, bool keep = false) {
        return vlab_draw_text(at.x, at.y, at.z, text.data(), text.size(), color.data(), color.size(), keep) ==
               VLAB_OK;
    }
    void clearDrawings() { vlab_clear_drawings(); }
    void holdDrawings() { vlab_hold_drawings(); }

private:
    template <class Base> using Parts = std::map<std::pair<std::string, const void *>, std::unique_ptr<Base>>;

    template <class T, class Base, class Find, class Kind>
    static T *find(Parts<Base> &parts, const std::string &name, Find find_part, Kind kind_of) {
        std::pair<std::string, const void *> key(name, vlab_detail::tag<T>());
        typename Parts<Base>::iterator known = parts.find(key);
        if (known != parts.end()) return static_cast<T *>(known->second.get());
        int32_t index = find_part(name.data(), name.size());
        if (index < 0) return nullptr;
        std::string kind =
            vlab_detail::read_string([=](char *buf, size_t cap) { return kind_of(index, buf, cap); });
        if (!T::accepts(kind)) return nullptr;
        T *part = new T(index, name, kind);
        parts[key].reset(part);
        return part;
    }

    static std::vector<double> flat(const std::vector<Vector3D> &points) {
        std::vector<double> xyz;
        for (const Vector3D &p : points) xyz.insert(xyz.end(), {p.x, p.y, p.z});
        return xyz;
    }

    Parts<Sensor> _sensors;
    Parts<Actuator> _actuators;
};

// What a program implements: preStep() before each control step's physics, postStep()
// with each step's fresh readings; _robot is its robot.
class RobotSoftware {
public:
    explicit RobotSoftware(Robot *robot) : _robot(robot) {}
    virtual ~RobotSoftware() {}
    virtual void preStep() {}
    virtual void postStep() {}

protected:
    Robot *_robot;
};

// Makes Class the program, shown as `name`: the lab creates one Class at start (its
// constructor runs then) and calls preStep() and postStep() on it every control step.
#define ROBOT_SOFTWARE_PLUGIN(Class, name)                                                         \
    static Robot vlab_plugin_robot;                                                                 \
    static RobotSoftware *vlab_plugin_software = nullptr;                                           \
    extern "C" VLAB_EXPORT("init") void vlab_plugin_init(void) {                                     \
        vlab_plugin_software = new Class(&vlab_plugin_robot);                                       \
    }                                                                                               \
    extern "C" VLAB_EXPORT("pre_step") void vlab_plugin_pre_step(void) { vlab_plugin_software->preStep(); } \
    extern "C" VLAB_EXPORT("post_step") void vlab_plugin_post_step(void) { vlab_plugin_software->postStep(); } \
    extern "C" VLAB_EXPORT("vlab_program_name") const char *vlab_program_name(void) { return name; }

// VLAB's programs name string, cout and endl without std:: (its example does), so the
// API brings the standard namespace in, as its headers did.
using namespace std;

#endif // VLAB_ROBOT_SOFTWARE_API_H
