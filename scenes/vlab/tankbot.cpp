// tankbot.cpp: the tank of tank.vlab shuttles along X between x = 10 and x = 50 of the
// room, printing where its GPS puts it; the owner's R key turns it round. Written with
// the RobotAPI's names, as VLAB's C++ programs are: a RobotSoftware whose preStep()
// reads the sensors and sets the motors before every step of the physics.
#include <plugins/robot_software_api.h>

class PLUGIN_EXPORT Shuttle : public RobotSoftware {
public:
    Shuttle(Robot *r) : RobotSoftware(r) { heading = 1; }

    virtual void preStep() {
        RemoteControl *keys = _robot->getSensorInstance<RemoteControl>("kbd");
        if (keys) {
            int held = 0;
            if (keys->getValue(string("R"), held) && held != 0) heading = -heading;
        }

        dReal speed = 0;
        GPSSensor *gps = _robot->getSensorInstance<GPSSensor>("GPS1");
        if (gps) {
            Vector3D at;
            if (gps->getValue(at)) {
                cout << "GPS: " << gps->getValueString() << endl;
                if (heading > 0 && at.x > 50) heading = -1;
                if (heading < 0 && at.x < 10) heading = 1;
                speed = heading * 10;
            } else cout << "the GPS has no reading yet" << endl;
        } else cout << "this robot has no GPS1" << endl;

        Motor *left = _robot->getActuatorInstance<Motor>("Motor1");
        Motor *right = _robot->getActuatorInstance<Motor>("Motor2");
        if (left && right) {
            left->setSpeed(speed);
            right->setSpeed(speed);
        } else cout << "this robot has no Motor1 and Motor2" << endl;
    }

protected:
    int heading;
};

ROBOT_SOFTWARE_PLUGIN(Shuttle, "Shuttle")
